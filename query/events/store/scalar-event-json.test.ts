import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTagValue } from '../../../shared/events/storage-layout.js';
import type { InfluxSeries } from '../../../shared/stores/influx-store.js';
import { eventsAnswer } from '../task-events/task-events-answer.js';
import { scalarEventRows } from './scalar-event-json.js';
import { decodeInfluxRows } from './stored-events.js';

/** Text a client may send as a name or worker: quotes, backslashes, control characters, lone surrogates, HTML. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    'loss',
    '"',
    '\\',
    '\\"',
    '\u0000\u0001\u001f\u007f',
    '\n\r\t\b\f',
    '\ud800',
    'a\udfffb',
    '\ud83d\ude00',
    '\u2028\u2029',
    '<script>&amp;</script>',
    '~not-base64',
    '__proto__',
  ),
  fc.string({ maxLength: 12, unit: 'binary' }),
);
/** A tag as InfluxDB answers it: stored (encoded) text, or null where the row has none. */
const storedTag = fc.oneof(hostileText.map(encodeTagValue), hostileText, fc.constant(null));
const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 2 ** 53 + 2, -(2 ** 63), 123456789012345680000),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.double(),
  fc.integer(),
  // Epoch-ms timestamps and other integers beyond 32 bits (written through safeIntegerText).
  fc.maxSafeInteger(),
);
/** Any value a field may hold in InfluxDB's JSON answer (and some it may not). */
const fieldValue = fc.oneof(hostileNumber, hostileText, fc.boolean(), fc.constant(null));
/** Iterations and the no-iteration sentinel. */
const time = fc.oneof(fc.integer({ min: 0 }), fc.constant(-9223372036854775806), fc.constant(2 ** 62));
const at = fc.oneof(fc.integer({ min: 0, max: 8.64e15 }), fc.constant(null));

const COLUMNS = ['at', 'c', 'e', 'm', 'n', 'q', 'ts', 'v', 'w', 'y'] as const;

/** SELECT * FROM "scalar" answers: any subset of the columns (in any order), tags per row or per series. */
const scalarSeries = fc
  .record({
    columns: fc.shuffledSubarray([...COLUMNS], { minLength: 0 }),
    tags: fc.option(fc.record({ e: hostileText.map(encodeTagValue), n: fc.constantFrom('t', 'm') }), {
      nil: undefined,
    }),
    rows: fc.array(
      fc.record({
        time,
        at,
        c: storedTag,
        e: storedTag,
        m: storedTag,
        n: fc.constantFrom('t', 'm', null),
        q: fc.oneof(hostileNumber, fc.constant(null)),
        ts: fc.oneof(hostileNumber, fc.constant(null)),
        v: storedTag,
        w: fieldValue,
        y: fieldValue,
      }),
      { maxLength: 8 },
    ),
  })
  // Without `at`, an event's @timestamp is no date: the object path throws, and so does the text.
  .filter(({ columns }) => columns.includes('at'))
  .map(({ columns, tags, rows }): InfluxSeries => ({
    name: 'scalar',
    ...(tags ? { tags } : {}),
    columns: ['time', ...columns],
    values: rows.map((row) => [row.time, ...columns.map((c) => row[c])]),
  }));

describe('scalarEventRows', () => {
  it('writes each row as JSON.stringify writes the stored event built from it', () => {
    fc.assert(
      fc.property(scalarSeries, (series) => {
        const objects = decodeInfluxRows(series, 'scalar');
        const texts = scalarEventRows(series);
        expect(texts.map((e) => e.json)).toEqual(objects.map((e) => JSON.stringify(e.event)));
        expect(texts.map((e) => [e.iter, e.timestamp, e.seq])).toEqual(
          objects.map((e) => [e.iter, e.timestamp, e.seq]),
        );
        expect(texts.map((e) => e.event)).toEqual(objects.map((e) => e.event));
      }),
      { numRuns: 500 },
    );
  });

  it('makes the same answer as the objects would', () => {
    fc.assert(
      fc.property(scalarSeries, fc.string({ unit: 'binary' }), (series, scrollId) => {
        const tail = `],"returned":${series.values.length},"scroll_id":${JSON.stringify(scrollId)}}`;
        const text = eventsAnswer(scalarEventRows(series), tail);
        const bytes = typeof text === 'string' ? Buffer.from(text) : text.finish();
        const expected = {
          events: decodeInfluxRows(series, 'scalar').map((e) => e.event),
          returned: series.values.length,
          scroll_id: scrollId,
        };
        expect(bytes.equals(Buffer.from(JSON.stringify(expected)))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
