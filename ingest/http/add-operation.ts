/**
 * events.add (events.md §2.1): one event, exactly as a batch of one. The
 * call data is the event (query-string parameters merged over the body, so
 * allow_locked and model_event may come from the query string).
 */
import { z } from 'zod';
import type { IngestService } from '../../shared/events/ingest-port.js';
import { defineOperation } from '../../shared/protocol/operation.js';
import { workerHeaderOf } from './worker-header.js';

export function addOperation(deps: { ingest: IngestService }) {
  return defineOperation({
    name: 'events.add',
    minVersion: '1.0',
    request: z.record(z.string(), z.unknown()),
    async handle(event, context) {
      const session = deps.ingest.begin({ identity: context.identity, workerHeader: workerHeaderOf(context.headers), signal: context.signal });
      try {
        session.add(event);
      } catch (error) {
        // Releases what the event took from the in-flight budget.
        session.discard();
        throw error;
      }
      return session.commit();
    },
  });
}
