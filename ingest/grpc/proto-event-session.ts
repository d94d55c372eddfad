/**
 * Feeds protobuf events to the one ingest entry point (IngestSession), as
 * the raw objects the HTTP decoders produce.
 */
import type { IngestRequestContext, IngestResult, IngestService, IngestSession } from '../events/ingest-port.js';
import type { Event } from './gen/clearml/events/v1/events_ingest_pb.js';
import { decodeProtoEvent } from './proto-event-decoder.js';

export function addProtoEvents(session: IngestSession, events: readonly Event[]): void {
  for (const event of events) session.add(decodeProtoEvent(event));
}

/** One request made of `events`: begin, add, commit (or discard if adding fails). */
export async function ingestProtoEvents(
  ingest: IngestService,
  context: IngestRequestContext,
  events: readonly Event[],
): Promise<IngestResult> {
  const session = ingest.begin(context);
  try {
    addProtoEvents(session, events);
  } catch (err) {
    session.discard(err);
    throw err;
  }
  return session.commit();
}
