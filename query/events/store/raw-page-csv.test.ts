import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTagValue } from '../../../shared/events/storage-layout.js';
import { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { csvCell, int64, storedTag, time, value, type Cell } from './influx-csv-test-harness.js';
import { JsonNumberLists, RawPageCsvParser } from './raw-page-csv.js';

/** Rows of SELECT "y", "ts", "q", "v" as InfluxDB holds them; the columns in any order. */
const page = fc.record({
  columns: fc.shuffledSubarray(['y', 'ts', 'q', 'v'] as const, { minLength: 4 }),
  rows: fc.array(
    fc.record({
      time,
      y: fc.oneof(value, fc.constant(null)),
      ts: fc.oneof(int64, fc.constant(null)),
      q: fc.oneof(int64, fc.constant(null)),
      v: storedTag,
    }),
    { maxLength: 10 },
  ),
});
type Page = { columns: Array<'y' | 'ts' | 'q' | 'v'>; rows: Array<Record<'time' | 'y' | 'ts' | 'q' | 'v', Cell>> };

function csvAnswer({ columns, rows }: Page): string {
  if (rows.length === 0) return 'name,tags,name\nmeasurements,,scalar\n';
  const lines = rows.map((row) => `scalar,,${[row.time, ...columns.map((c) => row[c])].map(csvCell).join(',')}\n`);
  return `name,tags,time,${columns.join(',')}\n${lines.join('')}\nname,tags,name\nmeasurements,,scalar\n`;
}

/** A cell as InfluxDB's JSON answer holds it, read by JSON.parse. */
const jsonValue = (cell: Cell): number | null =>
  cell === null ? null : (JSON.parse(typeof cell === 'bigint' ? cell.toString() : JSON.stringify(cell)) as number);

function written(values: JsonNumberLists, refs: readonly number[]): string {
  const out = new JsonBytesWriter(16);
  values.write(out, refs);
  return out.finish().toString();
}

function parsedInPieces(bytes: Buffer, at: number[], values: JsonNumberLists) {
  const parser = new RawPageCsvParser(values);
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, bytes.length]) {
    parser.push(bytes.subarray(from, point));
    from = point;
  }
  return parser.end();
}

describe('RawPageCsvParser', () => {
  it('reads what the JSON answer of the same rows holds, and writes y as JSON.stringify does, in any pieces', () => {
    fc.assert(
      fc.property(page, fc.array(fc.nat(), { maxLength: 12 }), (p, at) => {
        const values = new JsonNumberLists();
        const { rows, complete } = parsedInPieces(Buffer.from(csvAnswer(p as Page)), at, values);
        expect(complete).toBe(true);
        expect(rows.length).toBe(p.rows.length);
        expect([...rows.x]).toEqual(p.rows.map((r) => jsonValue(r.time)));
        expect(rows.variant).toEqual(p.rows.map((r) => decodeTagValue((r.v as string | null) ?? '')));
        p.rows.forEach((r, i) => {
          expect(rows.arrival(i)).toEqual({ ts: jsonValue(r.ts) ?? 0, seq: jsonValue(r.q) ?? 0 });
          expect(written(values, [rows.y[i]!])).toBe(JSON.stringify(jsonValue(r.y)));
        });
      }),
      { numRuns: 600 },
    );
  });

  it('writes any selection of the y of several reads, in any order, as the list of their values', () => {
    fc.assert(
      fc.property(page, page, fc.array(fc.nat()), (a, b, picks) => {
        const values = new JsonNumberLists();
        const first = parsedInPieces(Buffer.from(csvAnswer(a as Page)), [7], values).rows;
        const second = parsedInPieces(Buffer.from(csvAnswer(b as Page)), [3], values).rows;
        const refs = [...first.y, ...second.y];
        const texts = [...a.rows, ...b.rows].map((r) => JSON.stringify(jsonValue(r.y)));
        // Every row in order (runs of one variant copy as spans), then an arbitrary pick.
        expect(written(values, refs)).toBe(texts.join(','));
        const picked = refs.length === 0 ? [] : picks.map((k) => k % refs.length);
        expect(
          written(
            values,
            picked.map((k) => refs[k]!),
          ),
        ).toBe(picked.map((k) => texts[k]).join(','));
      }),
      { numRuns: 300 },
    );
  });

  it('tells an answer cut before the completion statement', () => {
    fc.assert(
      fc.property(page, fc.nat(), (p, at) => {
        const text = csvAnswer(p as Page);
        const end = Buffer.byteLength(text.slice(0, text.lastIndexOf('measurements,,')));
        const cut = Buffer.from(text).subarray(0, at % (end + 1));
        expect(parsedInPieces(cut, [], new JsonNumberLists()).complete).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses an answer without the columns of the page', () => {
    const parser = new RawPageCsvParser(new JsonNumberLists());
    expect(() => parser.push(Buffer.from('name,tags,time,y,v\nscalar,,1,2,a\n'))).toThrow(/lacks a column/);
  });
});
