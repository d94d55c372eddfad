import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvColumnsParser, parseCsvColumns, parseNumericCsv } from './csv-columns-parser.js';

describe('parseNumericCsv', () => {
  it('reads the named columns of an InfluxDB CSV answer', () => {
    const text = 'name,tags,time,ts,y\nscalar,,0,1700000000000,0.5\nscalar,,1,1700000000010,-2e-7\n';
    const [ts, y] = parseNumericCsv(text, ['ts', 'y']);
    expect([...ts!]).toEqual([1700000000000, 1700000000010]);
    expect([...y!]).toEqual([0.5, -2e-7]);
  });

  it('accepts CRLF, a missing final newline and empty answers', () => {
    const [y] = parseNumericCsv('name,tags,time,y\r\nscalar,,3,7\r\nscalar,,4,8', ['y']);
    expect([...y!]).toEqual([7, 8]);
    expect(parseNumericCsv('', ['y'])[0]).toHaveLength(0);
    expect(parseNumericCsv('\n', ['y'])[0]).toHaveLength(0);
  });

  it('reads integers digit by digit exactly as Number() would, and everything else through Number()', () => {
    const values = [
      '-42',
      '0',
      '9007199254740991',
      '1099511627776',
      '12345678901234567890',
      '-0.25',
      '1e21',
      '3.',
      'NaN',
      '-',
    ];
    const text = `name,tags,time,q\n${values.map((v, i) => `scalar,,${i},${v}`).join('\n')}\n`;
    expect([...parseNumericCsv(text, ['q'])[0]!]).toEqual(values.map(Number));
  });

  it('fails on a column the answer lacks', () => {
    expect(() => parseNumericCsv('name,tags,time,y\nscalar,,1,2\n', ['ts'])).toThrow(/lacks column ts/);
  });
});

describe('parseCsvColumns', () => {
  // What InfluxDB 1.6 answered for tag values `plain`, `has,comma`, `q"uote` and `sp ace` (Go's encoding/csv quoting).
  const answer =
    'name,tags,time,y,ts,q,v\nscalar,,3,0.1,5,7,plain\nscalar,,4,0.0000001,6,8,"has,comma"\nscalar,,5,-2.5,7,9,"q""uote"\nscalar,,6,3,8,10,sp ace\n';

  it('reads number columns (time included) and string columns, quoted cells unescaped', () => {
    const { numbers, strings } = parseCsvColumns(answer, ['time', 'y', 'q'], ['v']);
    expect(numbers.map((column) => [...column])).toEqual([
      [3, 4, 5, 6],
      [0.1, 1e-7, -2.5, 3],
      [7, 8, 9, 10],
    ]);
    expect(strings).toEqual([['plain', 'has,comma', 'q"uote', 'sp ace']]);
  });

  it('keeps a quoted cell holding a newline in its row, and CRLF line ends', () => {
    const { numbers, strings } = parseCsvColumns(
      'name,tags,time,v,y\r\nscalar,,1,"two\r\nlines",5\r\nscalar,,2,b,6\r\n',
      ['time', 'y'],
      ['v'],
    );
    expect(numbers.map((column) => [...column])).toEqual([
      [1, 2],
      [5, 6],
    ]);
    expect(strings).toEqual([['two\r\nlines', 'b']]);
  });

  it('reads repeated values right, also values that are prefixes of one another', () => {
    const values = ['variant1', 'variant10', 'variant1', 'variant', 'variant10', '"q"', 'variant'];
    const text = `name,tags,time,v\n${values.map((v, i) => `scalar,,${i},${v.includes('"') ? `"${v.replaceAll('"', '""')}"` : v}`).join('\n')}\n`;
    expect(parseCsvColumns(text, [], ['v']).strings).toEqual([values]);
  });

  it('fails on an unterminated quoted cell instead of reading past it', () => {
    expect(() => parseCsvColumns('name,tags,time,v\nscalar,,1,"open\n', ['time'], ['v'])).toThrow(/unterminated/);
  });
});

/** A cell as Go's encoding/csv writes it (InfluxDB's CSV writer): quoted when it holds `,` `"` CR LF or starts with a space. */
const goCsvCell = (value: string) =>
  /[",\r\n]/.test(value) || /^\s/u.test(value) ? `"${value.replaceAll('"', '""')}"` : value;

const answerRow = fc.record({
  time: fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
  y: fc.double({ noNaN: true, noDefaultInfinity: true }),
  q: fc.maxSafeInteger(),
  v: fc.oneof(
    fc.string({ unit: 'binary', maxLength: 12 }),
    // What CSV quoting is about, often enough that cuts fall between a cell's quotes.
    fc.string({ unit: fc.constantFrom('"', ',', '\n', '\r', ' ', 'a'), maxLength: 8 }),
  ),
});

/** InfluxDB's streamed answer to a SELECT and then COMPLETION_STATEMENT (as 1.6.7 writes it, seen live). */
function streamedAnswer(rows: Array<{ time: number; y: number; q: number; v: string }>, complete: boolean): string {
  const select =
    rows.length === 0
      ? ''
      : `name,tags,time,q,v,y\n${rows.map((r) => `scalar,,${r.time},${r.q},${goCsvCell(r.v)},${r.y}\n`).join('')}`;
  if (!complete) return select;
  return `${select}${rows.length === 0 ? '' : '\n'}name,tags,name\nmeasurements,,scalar\n`;
}

/** The text in pieces, cut at the given positions (any UTF-16 position: inside cells, rows, CRLF). */
function pieces(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  return [...at, text.length].map((end, i) => text.slice(i === 0 ? 0 : at[i - 1], end));
}

describe('CsvColumnsParser', () => {
  it('reads an answer cut in pieces anywhere as the whole answer, and knows whether it ended whole', () => {
    fc.assert(
      fc.property(
        fc.array(answerRow, { maxLength: 40 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 40 }),
        (rows, complete, cuts) => {
          const text = streamedAnswer(rows, complete);
          const parser = new CsvColumnsParser(['time', 'y', 'q'], ['v']);
          for (const piece of pieces(text, cuts)) parser.push(piece);
          const columns = parser.end();
          expect(parser.complete).toBe(complete);
          expect(parser.rowCount).toBe(rows.length);
          expect(columns.numbers.map((column) => [...column])).toEqual([
            rows.map((r) => r.time),
            rows.map((r) => Number(String(r.y))), // -0 is written 0
            rows.map((r) => r.q),
          ]);
          expect(columns.strings).toEqual([rows.map((r) => r.v)]);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('reads an answer given as bytes cut anywhere, inside a character too, as the whole answer', () => {
    fc.assert(
      fc.property(fc.array(answerRow, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 40 }), (rows, cuts) => {
        const bytes = Buffer.from(streamedAnswer(rows, true));
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const parser = new CsvColumnsParser(['time'], ['v']);
        [...at, bytes.length].forEach((end, i) => parser.pushBytes(bytes.subarray(i === 0 ? 0 : at[i - 1], end)));
        const columns = parser.end();
        expect(parser.complete).toBe(true);
        expect(columns.strings).toEqual([rows.map((r) => Buffer.from(r.v).toString())]);
        expect([...columns.numbers[0]!]).toEqual(rows.map((r) => r.time));
      }),
      { numRuns: 2_000 },
    );
  });

  it('skips a header InfluxDB writes again, and fails on one that changes the columns', () => {
    const header = 'name,tags,time,y\n';
    const again = parseCsvColumns(`${header}scalar,,1,2\n${header}scalar,,2,3\n`, ['y']);
    expect([...again.numbers[0]!]).toEqual([2, 3]);
    expect(() => parseCsvColumns(`${header}scalar,,1,2\nname,tags,time,q\nscalar,,2,3\n`, ['y'])).toThrow(
      /changed its columns/,
    );
  });
});
