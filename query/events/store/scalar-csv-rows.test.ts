import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InfluxSeries } from '../../../shared/stores/influx-store.js';
import { eventsAnswer } from '../task-events/task-events-answer.js';
import { ScalarCsvParser, scalarCsvRows } from './scalar-csv-rows.js';
import { decodeInfluxRows, type SequencedEvent } from './stored-events.js';
import { csvCell, hostileText, int64, storedTag, time, value, type Cell } from './influx-csv-test-harness.js';

const COLUMNS = ['at', 'c', 'e', 'm', 'n', 'q', 'ts', 'v', 'w', 'y'] as const;
type Column = (typeof COLUMNS)[number];

/** One statement's rows as InfluxDB holds them: `at` always (the writer stores it on every point). */
const storedRows = fc.record({
  columns: fc.shuffledSubarray([...COLUMNS]).filter((columns) => columns.includes('at')),
  rows: fc.array(
    fc.record({
      time,
      at: fc.oneof(fc.bigInt({ min: 0n, max: 8_640_000_000_000_000n }), fc.constant(null)),
      c: storedTag,
      e: storedTag,
      m: storedTag,
      n: fc.constantFrom('t', 'm', null),
      q: fc.oneof(int64, fc.constant(null)),
      ts: fc.oneof(int64, fc.constant(null)),
      v: storedTag,
      // Never null: the writer stores `w` on every point, and CSV cannot tell "" from none (scalar-csv-rows.ts).
      w: hostileText,
      y: fc.oneof(value, fc.constant(null)),
    }),
    { maxLength: 8 },
  ),
});
type Stored = { columns: Column[]; rows: Array<Record<Column | 'time', Cell>> };

/** The answer InfluxDB writes in CSV, followed by the completion statement's. */
function csvAnswer({ columns, rows }: Stored): string {
  if (rows.length === 0) return 'name,tags,name\nmeasurements,,scalar\n';
  const header = `name,tags,time,${columns.join(',')}\n`;
  const lines = rows.map((row) => `scalar,,${[row.time, ...columns.map((c) => row[c])].map(csvCell).join(',')}\n`);
  return `${header}${lines.join('')}\nname,tags,name\nmeasurements,,scalar\n`;
}

/** The same rows as InfluxDB's JSON answer, read as the JSON path reads it. */
function jsonSeries({ columns, rows }: Stored): InfluxSeries {
  const jsonCell = (cell: Cell) =>
    cell === null
      ? 'null'
      : typeof cell === 'bigint'
        ? cell.toString()
        : Object.is(cell, -0)
          ? '-0'
          : JSON.stringify(cell);
  const values = rows.map((row) => `[${[row.time, ...columns.map((c) => row[c])].map(jsonCell).join(',')}]`);
  return JSON.parse(
    `{"name":"scalar","columns":${JSON.stringify(['time', ...columns])},"values":[${values.join(',')}]}`,
  ) as InfluxSeries;
}

const answerText = (events: readonly SequencedEvent[], tail: string) => {
  const answer = eventsAnswer(events, tail);
  return typeof answer === 'string' ? answer : answer.finish().toString('utf8');
};

/** Cut points of a text's bytes. */
const cuts = fc.array(fc.nat(), { maxLength: 12 });

function inPieces(bytes: Buffer, at: number[]): ScalarCsvParser {
  const parser = new ScalarCsvParser();
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, bytes.length]) {
    parser.push(bytes.subarray(from, point));
    from = point;
  }
  return parser;
}

describe('scalarCsvRows', () => {
  it('writes each row as JSON.stringify writes the event the JSON answer of the same rows gives', () => {
    fc.assert(
      fc.property(storedRows, (stored) => {
        const objects = decodeInfluxRows(jsonSeries(stored as Stored), 'scalar');
        const { rows, complete } = scalarCsvRows(Buffer.from(csvAnswer(stored as Stored)));
        expect(complete).toBe(true);
        expect(rows.map((e) => answerText([e], ''))).toEqual(
          objects.map((e) => `{"events":[${JSON.stringify(e.event)}`),
        );
        expect(rows.map((e) => [e.iter, e.timestamp, e.seq])).toEqual(objects.map((e) => [e.iter, e.timestamp, e.seq]));
        expect(rows.map((e) => e.event)).toEqual(objects.map((e) => JSON.parse(JSON.stringify(e.event))));
      }),
      { numRuns: 600 },
    );
  });

  it('makes the same answer whatever pieces the CSV arrives in', () => {
    fc.assert(
      fc.property(storedRows, cuts, fc.string({ unit: 'binary' }), (stored, at, scrollId) => {
        const bytes = Buffer.from(csvAnswer(stored as Stored));
        const tail = `],"returned":${stored.rows.length},"scroll_id":${JSON.stringify(scrollId)}}`;
        const { rows, complete } = inPieces(bytes, at).end();
        expect(complete).toBe(true);
        const expected = {
          events: decodeInfluxRows(jsonSeries(stored as Stored), 'scalar').map((e) => e.event),
          returned: stored.rows.length,
          scroll_id: scrollId,
        };
        expect(answerText(rows, tail)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 400 },
    );
  });

  it('tells an answer cut before the completion statement', () => {
    fc.assert(
      fc.property(storedRows, fc.nat(), (stored, at) => {
        const text = csvAnswer(stored as Stored);
        const end = text.lastIndexOf('measurements,,');
        const cut = Buffer.from(text).subarray(0, at % (Buffer.byteLength(text.slice(0, end)) + 1));
        expect(inPieces(cut, [at >> 1]).end().complete).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses CSV that is not such an answer', () => {
    expect(() => scalarCsvRows(Buffer.from('scalar,,1,2\n'))).toThrow(/before its header/);
    expect(() => scalarCsvRows(Buffer.from('name,tags,time,at,y\nscalar,,1,2,3\nname,tags,time,z\n'))).toThrow(
      /changed/,
    );
    expect(() => scalarCsvRows(Buffer.from('name,tags,time,y\nscalar,,1,2\n'))).toThrow(/without `at`/);
    // Cut inside a quoted cell: not whole (the reader then asks InfluxDB what happened).
    const cut = scalarCsvRows(Buffer.from('name,tags,time,at,w\nscalar,,1,2,"open\n'));
    expect(cut).toEqual({ rows: [], complete: false });
  });
});
