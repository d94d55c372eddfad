import { describe, expect, it } from 'vitest';
import { requestSchema } from '../../shared/protocol/request-fields.js';
import { abbreviateReport, clientMessage, reportName } from './report-fields.js';

describe('abbreviateReport (reports.md §3.2)', () => {
  it.each([
    ['# Title\n\nSome   text', '# Title Some text'],
    ['  padded\t ', 'padded'],
    ['', ''],
    [`${'word '.repeat(20)}end`, `${'word '.repeat(19)}[...]`],
    [`${'word '.repeat(19)}e`, `${'word '.repeat(19)}e`],
    ['x'.repeat(101), '[...]'],
    [`${'x'.repeat(90)} ${'y'.repeat(20)}`, `${'x'.repeat(90)} [...]`],
  ])('%j', (text, expected) => {
    const out = abbreviateReport(text);
    expect(out).toBe(expected);
    expect(out.length).toBeLessThanOrEqual(100);
  });
});

describe('report names (§2.2)', () => {
  const schema = requestSchema({ name: reportName({ required: true }) });
  it('trims and keeps the value as received', () => {
    expect(schema.parse({ name: '  Rep1 ' })).toEqual({ name: { raw: '  Rep1 ', trimmed: 'Rep1' } });
  });
  it('counts code points after trimming', () => {
    expect(schema.safeParse({ name: ' ab ' }).error?.issues[0]?.message).toBe(
      "value 'ab' length is lower than allowed minimum '3'.",
    );
    expect(schema.safeParse({ name: '😀😀😀' }).success).toBe(true);
    expect(schema.safeParse({}).error?.issues[0]?.message).toBe("error for field 'name'. field is required!");
  });
});

describe('clientMessage (§2.3)', () => {
  it('takes message, then comment, when they are strings', () => {
    expect(clientMessage({ message: 'm', comment: 'c' })).toBe('m');
    expect(clientMessage({ message: 5, comment: 'c' })).toBe('c');
    expect(clientMessage({ comment: null })).toBe('');
  });
});
