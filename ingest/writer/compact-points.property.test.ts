// Wire version 2 (shared/events/wire-format.ts): a point whose event has the request's worker
// travels as a J record after its message's E record; version 3: a scalar's as a K record naming
// its series head, which an H record defines once a message. What the writer stores from either
// must be the very line it stores from the self-contained I record, for any event ingest accepts,
// and a dead letter of it must carry that whole point.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivalSeq, decodeRecords, frameRecord, headerRecordBody } from '../../shared/events/wire-format.js';
import { EventEncoder } from '../events/event-encoder.js';
import { normalizeEvent, type NormalizedEvent } from '../events/event-normalizer.js';
import { hostileEvent, hostileString, mostlyValidEvent } from '../events/hostile-event-test-harness.js';
import { RecordSink } from '../events/record-sink.js';
import { PointBuffer } from './point-buffer.js';
import { recordFrame, scanRecords } from './record-scanner.js';

const RECEIVED_AT = 1_718_000_000_000;
const WORKER = 'node-7';
const RUNS = 400;

function stored(payload: string, streamSeq = 9) {
  const points = new PointBuffer();
  const malformed: Array<[number, string]> = [];
  scanRecords(Buffer.from(payload, 'utf8'), streamSeq, {
    point: (src, start, end, seq, _index, header, headStart, headEnd) =>
      points.append(src, start, end, seq, header, headStart, headEnd),
    log: () => undefined,
    summary: () => undefined,
    malformed: (index, detail) => malformed.push([index, detail]),
  });
  return { lines: points.bytes().toString('utf8').split('\n').slice(0, -1), malformed };
}

const CONTEXT = { receivedAt: RECEIVED_AT, defaultWorker: WORKER, allowLockedDefault: false };
const POINT_TYPES = new Set(['training_stats_scalar', 'training_stats_vector', 'training_debug_image']);
// Normalised once: a hostile event may answer differently each time it is read.
const pointEvents = fc
  .oneof(hostileEvent, mostlyValidEvent)
  .map((raw) => normalizeEvent(raw, CONTEXT).event)
  .filter((event) => event !== undefined && POINT_TYPES.has(event.type))
  .map((event) => event!);

/** The records of an ASCII-free-of-surprises payload as [kind, frame] pairs (lengths in UTF-16 code units). */
function frames(payload: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let at = 0; at < payload.length;) {
    const colon = payload.indexOf(':', at);
    const end = colon + 1 + Number(payload.slice(at + 1, colon));
    out.push([payload[at]!, payload.slice(at, end)]);
    at = end;
  }
  return out;
}

/**
 * One message of the first event's entity, as the session packs it (ingest-session.ts append),
 * each event twice (a message's second point of a series names the head its first one defined),
 * and the I records of its points, read through UTF-8 as the payload went (a lone surrogate of
 * a hostile company reads back as U+FFFD).
 */
function entityMessage(encoder: EventEncoder, events: NormalizedEvent[]): { payload: Buffer; full: string[] } {
  const entity = events[0]!.entity;
  const sameEntity = events.filter((e) => e.entity === entity).flatMap((e) => [e, e]);
  const sink = new RecordSink(1 << 20, 1 << 20);
  const header = encoder.header(entity);
  for (const e of sameEntity) {
    const rest = e.type === 'training_stats_scalar' ? encoder.compactScalarRest(e) : undefined;
    if (rest !== undefined)
      sink.appendScalar(encoder.compactScalarHead(e.namespace, e.metric, e.variant), rest, header);
    else {
      const compact = encoder.compactPoint(e);
      sink.append(compact ?? encoder.point(e), compact === undefined ? undefined : header);
    }
  }
  const [bytes] = sink.payloads();
  return {
    payload: Buffer.from(bytes!),
    full: sameEntity.map((e) => Buffer.from(encoder.point(e), 'utf8').toString('utf8')),
  };
}

/** Checks what the writer stores from a payload of E, H, K, J and I records against the I records `full`; answers its K records. */
function expectStoredAsFull(payload: string, full: string[]): number {
  const kinds = frames(payload).map(([kind]) => kind);
  // Every point read back as the I record it stands for; E and H records hold none.
  expect([...decodeRecords(payload)].map((r) => frameRecord(r.kind, r.body))).toEqual(full);
  // Arrival sequences count E and H records: compare with I records where a record of their own stands in.
  let point = 0;
  const expectedPayload = kinds.map((kind) => (kind === 'E' || kind === 'H' ? frameRecord('R', '{}') : full[point++]!));
  const actual = stored(payload);
  expect(actual.malformed).toEqual([]);
  expect(actual.lines).toEqual(stored(expectedPayload.join('')).lines);
  // A dead letter of a K (or J) record carries the whole point.
  point = 0;
  for (const [i, kind] of kinds.entries())
    if (kind !== 'E' && kind !== 'H')
      expect(recordFrame(Buffer.from(payload, 'utf8'), i)).toEqual(Buffer.from(full[point++]!, 'utf8'));
  return kinds.filter((kind) => kind === 'K').length;
}

describe('H and K records (wire version 3)', () => {
  it('store the same line as the I record of the same event, for any accepted point event and company', () => {
    let compacted = 0;
    fc.assert(
      fc.property(fc.array(pointEvents, { minLength: 1, maxLength: 6 }), hostileString, (events, company) => {
        const { payload, full } = entityMessage(new EventEncoder(company, RECEIVED_AT, WORKER), events);
        compacted += expectStoredAsFull(payload.toString('utf8'), full);
      }),
      { numRuns: RUNS },
    );
    // The property must have been exercised on K records, not only on other points (~a quarter of the runs have some).
    expect(compacted).toBeGreaterThan(RUNS / 8);
  }, 30_000);

  it('store the same lines when several entities share a message, each E record with its own tags and fields', () => {
    let compacted = 0;
    const entityPart = fc.record({
      events: fc.array(pointEvents, { minLength: 1, maxLength: 4 }),
      company: hostileString,
      receivedAt: fc.integer({ min: 0, max: 2 ** 42 }),
    });
    fc.assert(
      fc.property(fc.array(entityPart, { minLength: 2, maxLength: 3 }), (parts) => {
        // Entity messages joined, as packByPartition joins a partition's (partition-packer.ts).
        const messages = parts.map((p) => entityMessage(new EventEncoder(p.company, p.receivedAt, WORKER), p.events));
        const payload = Buffer.concat(messages.map((m) => m.payload)).toString('utf8');
        compacted += expectStoredAsFull(
          payload,
          messages.flatMap((m) => m.full),
        );
      }),
      { numRuns: RUNS / 2 },
    );
    expect(compacted).toBeGreaterThan(RUNS / 8);
  }, 30_000);

  it('refuse themselves one by one when their E record or head is missing or they have no time', () => {
    const header = frameRecord('E', headerRecordBody(',c=co,e=t1', ',at=5i,w="x"'));
    const head = frameRecord('H', 'scalar,m=m,n=t,v=v y=');
    const good = frameRecord('K', '0 1,ts=5i 3');
    const out = stored(
      good +
        header +
        frameRecord('K', '0 1,ts=5i 3') +
        head +
        frameRecord('K', '1 1,ts=5i 3') +
        frameRecord('K', '00 1,ts=5i 3') +
        frameRecord('K', 'x 1,ts=5i 3') +
        frameRecord('K', '0') +
        frameRecord('K', '0 ') +
        frameRecord('K', '0 1,ts=5i') +
        good +
        header +
        good,
    );
    expect(out.malformed).toEqual([
      [0, 'K record without an E record before it'],
      [2, 'K record names no head defined before it'],
      [4, 'K record names no head defined before it'],
      [5, 'K record names no head defined before it'],
      [6, 'K record names no head defined before it'],
      [7, 'K record names no head defined before it'],
      [8, 'K record has no time or no tag'],
      [9, 'K record has no time or no tag'],
      // An E record starts a new table of heads: the head defined before it is gone.
      [12, 'K record names no head defined before it'],
    ]);
    expect(out.lines).toEqual([`scalar,c=co,e=t1,m=m,n=t,v=v y=1,ts=5i,at=5i,w="x",q=${arrivalSeq(9, 10)}i 3`]);
  });
});

describe('J records (wire version 2)', () => {
  it('store the same line as the I record of the same event, for any accepted point event and company', () => {
    let compacted = 0;
    fc.assert(
      fc.property(fc.array(pointEvents, { minLength: 1, maxLength: 4 }), hostileString, (events, company) => {
        const encoder = new EventEncoder(company, RECEIVED_AT, WORKER);
        // One message of one entity, as the session packs it: the E record, then each point.
        const entity = events[0]!.entity;
        const sameEntity = events.filter((e) => e.entity === entity);
        const full = sameEntity.map((e) => encoder.point(e));
        const compact = sameEntity.map((e) => encoder.compactPoint(e) ?? encoder.point(e));
        for (const [i, e] of sameEntity.entries()) {
          expect(compact[i]!.startsWith('J')).toBe(e.worker === WORKER);
          if (e.worker === WORKER) compacted++;
        }
        const payload = encoder.header(entity) + compact.join('');
        // Arrival sequences differ only by the E record's index: compare with I records after a record of their own.
        const expected = stored(frameRecord('R', '{}') + full.join(''));
        const actual = stored(payload);
        expect(actual.malformed).toEqual([]);
        expect(actual.lines).toEqual(expected.lines);
        // The records read back as the I records they stand for, and a dead letter carries one whole.
        expect([...decodeRecords(payload)].map((r) => frameRecord(r.kind, r.body))).toEqual(full);
        for (const [i, record] of full.entries())
          expect(recordFrame(Buffer.from(payload, 'utf8'), i + 1)).toEqual(Buffer.from(record, 'utf8'));
      }),
      { numRuns: RUNS },
    );
    // The property must have been exercised on J records, not only on events of other workers.
    expect(compacted).toBeGreaterThan(RUNS / 4);
  }, 30_000);

  it('refuse themselves one by one when their E record is missing or malformed, or they have no tag or time', () => {
    const encoder = new EventEncoder('co', RECEIVED_AT, WORKER);
    const event = normalizeEvent(
      { type: 'training_stats_scalar', task: 't1', metric: 'm', variant: 'v', value: 1, iter: 3, timestamp: 5 },
      CONTEXT,
    ).event!;
    const j = encoder.compactPoint(event)!;
    expect(stored(j).malformed).toEqual([[0, 'J record without an E record before it']]);
    expect(stored(frameRecord('E', ',c=co,e=t1') + j).malformed).toEqual([
      [1, 'J record without an E record before it'],
    ]);
    const noTag = frameRecord('J', 'scalar y=1,ts=5i 3');
    const noTime = frameRecord('J', 'scalar,m=m,n=t,v=v');
    const good = encoder.point(event);
    const out = stored(encoder.header('t1') + noTag + noTime + j);
    expect(out.malformed).toEqual([
      [1, 'J record has no time or no tag'],
      [2, 'J record has no time or no tag'],
    ]);
    // The sound sibling is stored whole, with its own arrival sequence.
    expect(out.lines).toEqual(
      stored(frameRecord('R', '{}') + frameRecord('R', '{}') + frameRecord('R', '{}') + good).lines,
    );
    expect(out.lines[0]).toContain(`,q=${arrivalSeq(9, 3)}i `);
  });
});
