import { describe, expect, it } from 'vitest';
import { parseCsvColumns, parseNumericCsv } from './influx-csv.js';

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

  it('reads more number columns of one row again when asked to keep rows', () => {
    const rereadable = parseCsvColumns(answer, ['time'], ['v'], { rereadable: true });
    expect(rereadable.reread(1, ['ts', 'q'])).toEqual([6, 8]);
    expect(rereadable.reread(3, ['y'])).toEqual([3]);
    expect(() => rereadable.reread(4, ['y'])).toThrow(RangeError);
    expect(parseCsvColumns(answer, ['time'], ['v']).reread(0, ['ts'])).toEqual([]);
  });

  it('fails on an unterminated quoted cell instead of reading past it', () => {
    expect(() => parseCsvColumns('name,tags,time,v\nscalar,,1,"open\n', ['time'], ['v'])).toThrow(/unterminated/);
  });
});
