// Wire version 2 (shared/events/wire-format.ts): a point whose event has the request's worker
// travels as a J record after its message's E record. What the writer stores from it must be
// the very line it stores from the self-contained I record, for any event ingest accepts, and a
// dead letter of it must carry that whole point.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivalSeq, decodeRecords, frameRecord } from '../../shared/events/wire-format.js';
import { EventEncoder } from '../events/event-encoder.js';
import { normalizeEvent } from '../events/event-normalizer.js';
import { hostileEvent, hostileString, mostlyValidEvent } from '../events/hostile-event-test-harness.js';
import { PointBuffer } from './point-buffer.js';
import { recordFrame, scanRecords } from './record-scanner.js';

const RECEIVED_AT = 1_718_000_000_000;
const WORKER = 'node-7';
const RUNS = 400;

function stored(payload: string, streamSeq = 9) {
  const points = new PointBuffer();
  const malformed: Array<[number, string]> = [];
  scanRecords(Buffer.from(payload, 'utf8'), streamSeq, {
    point: (src, start, end, seq, _index, header) => points.append(src, start, end, seq, header),
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
