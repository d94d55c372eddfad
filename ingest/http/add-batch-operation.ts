/**
 * events.add_batch over HTTP (events.md §2.2). NDJSON bodies (the SDK's
 * application/json-lines, also x-ndjson and ndjson) are parsed line by line
 * as the bytes arrive and each event is checked at once; nothing is
 * published before the body is complete, because one malformed line rejects
 * the whole request. Other bodies are one JSON value: an object or an array
 * of objects.
 */
import type { Readable } from 'node:stream';
import type { IngestService, IngestSession } from '../events/ingest-port.js';
import { jsonLinesNotObject, mediaType, MALFORMED_BODY } from '../../shared/protocol/call-data.js';
import { defineStreamOperation, type CallContext } from '../../shared/protocol/operation.js';
import { parseBoundedJson } from '../../shared/protocol/client-object.js';
import { LineEventDensity, maxEventsForSize, tooManyEventsInTextError } from '../events/event-density.js';
import type { IngestMetrics } from '../events/ingest-metrics.js';
import { IDEMPOTENCY_KEY_HEADER, RequestFingerprint } from '../events/request-fingerprint.js';
import { NdjsonLines, type ByteRegion } from './ndjson-lines.js';
import { headerOf, workerHeaderOf } from './worker-header.js';

const LF = 0x0a;
const NDJSON_TYPES = new Set(['application/json-lines', 'application/x-ndjson', 'application/ndjson']);

/** Bytes of a body read so far. */
interface Received {
  bytes: number;
}

const EVENT = {
  type: 'object',
  description: 'One event (events.md §1; docs/ingest.md); checked by ingest, not by a schema',
};
/** What the body may be, for the API description. */
const BODY_MEDIA_TYPES = {
  ...Object.fromEntries(
    [...NDJSON_TYPES].map((type) => [
      type,
      { type: 'string', description: 'One event object per line', contentMediaType: type },
    ]),
  ),
  'application/json': { oneOf: [EVENT, { type: 'array', items: EVENT }] },
};

export function addBatchOperation(deps: { ingest: IngestService; maxLineBytes: number; metrics?: IngestMetrics }) {
  return defineStreamOperation({
    name: 'events.add_batch',
    minVersion: '1.0',
    bodyMediaTypes: BODY_MEDIA_TYPES,
    async handle(body, meta, context) {
      const fingerprint = RequestFingerprint.of('http.add_batch', headerOf(context.headers, IDEMPOTENCY_KEY_HEADER));
      const session = deps.ingest.begin({
        identity: context.identity,
        workerHeader: workerHeaderOf(context.headers),
        signal: context.signal,
        fingerprint,
      });
      const received: Received = { bytes: 0 };
      try {
        if (NDJSON_TYPES.has(mediaType(meta.contentType)))
          await readNdjson(body, session, deps.maxLineBytes, fingerprint, received);
        else await readJsonValue(await meta.readWhole(body), session, context, fingerprint, received);
      } catch (error) {
        // A body cut off by the client going away is no refusal of ours.
        session.discard(context.signal.aborted ? undefined : error);
        body.resume();
        throw error;
      } finally {
        deps.metrics?.received('http', received.bytes);
      }
      return session.commit();
    },
  });
}

function parseLine(line: string): Record<string, unknown> {
  const value = parseBoundedJson(line, MALFORMED_BODY);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw jsonLinesNotObject(value, line);
  return value as Record<string, unknown>;
}

async function readNdjson(
  body: Readable,
  session: IngestSession,
  maxLineBytes: number,
  fingerprint: RequestFingerprint,
  received: Received,
): Promise<void> {
  const lines = new NdjsonLines(maxLineBytes);
  const density = new LineEventDensity();
  const region: ByteRegion = { start: 0, end: -1 };
  // Leaving the loop by a throw destroys the body stream, as a failed pipeline did.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    fingerprint.update(chunk);
    received.bytes += chunk.length;
    if (session.addPlainScalarLine === undefined) {
      await addLines(session, lines.linesOf(chunk), density);
      continue;
    }
    await addLines(session, lines.linesAndRegionOf(chunk, region), density);
    if (region.end >= region.start) await addRegionLines(session, chunk, region, density);
  }
  const last = lines.end();
  if (last !== undefined) await addLines(session, [last], density);
}

async function addLines(session: IngestSession, lines: string[], density: LineEventDensity): Promise<void> {
  for (const line of lines) {
    if (line.trim() !== '') {
      density.add(line.length);
      session.add(parseLine(line));
    }
    // The body is read on once the request's spill writes caught up (TCP holds the rest).
    const drained = session.drained?.();
    if (drained !== undefined) await drained;
  }
}

/**
 * The lines of a chunk's region (ndjson-lines.ts), read from the bytes: a plain scalar line
 * by the session's fused path, any other decoded and parsed as `addLines` does.
 */
async function addRegionLines(
  session: IngestSession,
  chunk: Buffer,
  region: ByteRegion,
  density: LineEventDensity,
): Promise<void> {
  const { end } = region;
  for (let at = region.start; ;) {
    let stop = session.addPlainScalarLine!(chunk, at, end);
    // A plain line is ASCII: its bytes are its characters.
    if (stop >= 0) density.add(stop - at);
    else {
      stop = chunk.indexOf(LF, at);
      if (stop < 0 || stop > end) stop = end;
      const line = chunk.toString('utf8', at, stop);
      if (line.trim() !== '') {
        density.add(line.length);
        session.add(parseLine(line));
      }
    }
    const drained = session.drained?.();
    if (drained !== undefined) await drained;
    if (stop >= end) return;
    at = stop + 1;
  }
}

function readJsonValue(
  bytes: Buffer,
  session: IngestSession,
  context: CallContext,
  fingerprint: RequestFingerprint,
  received: Received,
): void {
  received.bytes = bytes.length;
  fingerprint.update(bytes);
  const text = bytes.toString('utf8');
  if (text.trim() === '') return;
  const value = parseBoundedJson(text, MALFORMED_BODY);
  const items = Array.isArray(value) ? value : [value];
  if (items.length > maxEventsForSize(text.length)) throw tooManyEventsInTextError(text.length);
  for (const item of items) {
    // Only a number's text matters (int or float); a nested array is never stringified (it may be 10,000 deep).
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw jsonLinesNotObject(item, typeof item === 'number' ? String(item) : '');
    context.signal.throwIfAborted();
    session.add(item as Record<string, unknown>);
  }
}
