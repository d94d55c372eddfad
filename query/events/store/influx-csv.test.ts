import { describe, expect, it } from 'vitest';
import { parseNumericCsv } from './influx-csv.js';

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
    const values = ['-42', '0', '9007199254740991', '1099511627776', '12345678901234567890', '-0.25', '1e21', '3.', 'NaN', '-'];
    const text = `name,tags,time,q\n${values.map((v, i) => `scalar,,${i},${v}`).join('\n')}\n`;
    expect([...parseNumericCsv(text, ['q'])[0]!]).toEqual(values.map(Number));
  });

  it('fails on a column the answer lacks', () => {
    expect(() => parseNumericCsv('name,tags,time,y\nscalar,,1,2\n', ['ts'])).toThrow(/lacks column ts/);
  });
});
