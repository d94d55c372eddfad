import { describe, expect, it } from 'vitest';
import { isApiError } from '../../../shared/errors/error-catalogue.js';
import { compileLogSearch, MAX_SEARCH_LENGTH } from './log-search.js';

function failure(run: () => unknown): { code: number; subcode: number; message: string } {
  try {
    run();
  } catch (error) {
    if (isApiError(error)) return { code: error.entry.code, subcode: error.entry.subcode, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('compileLogSearch', () => {
  it('nothing to search: absent, null or empty', () => {
    expect(compileLogSearch({})).toBeUndefined();
    expect(compileLogSearch({ text: null })).toBeUndefined();
    expect(compileLogSearch({ text: '', regex: true })).toBeUndefined();
  });

  it('substring, case-sensitive unless asked', () => {
    const exact = compileLogSearch({ text: 'Loss' })!;
    expect([exact('val Loss 0.1'), exact('val loss 0.1')]).toEqual([true, false]);
    const folded = compileLogSearch({ text: 'Loss', ignoreCase: true })!;
    expect([folded('VAL LOSS'), folded('gain')]).toEqual([true, false]);
  });

  it('regex metacharacters are literal in substring mode', () => {
    const m = compileLogSearch({ text: 'a.b(' })!;
    expect([m('xa.b(y'), m('axb(')]).toEqual([true, false]);
  });

  it('RE2 patterns, unanchored, optionally case-insensitive, across lines with (?s)', () => {
    const m = compileLogSearch({ text: 'epoch \\d+ done', regex: true })!;
    expect([m('INFO epoch 12 done!'), m('epoch x done')]).toEqual([true, false]);
    expect(compileLogSearch({ text: '^EPOCH', regex: true, ignoreCase: true })!('epoch 1')).toBe(true);
    expect(compileLogSearch({ text: '(?s)first.*second', regex: true })!('first\nsecond')).toBe(true);
    expect(compileLogSearch({ text: '^second', regex: true })!('first\nsecond')).toBe(false);
    expect(compileLogSearch({ text: '(?m)^second', regex: true })!('first\nsecond')).toBe(true);
  });

  it('events without a string msg never match', () => {
    const m = compileLogSearch({ text: '' + 'x' })!;
    expect([m(undefined), m(null), m(42)]).toEqual([false, false, false]);
    expect(compileLogSearch({ text: '.*', regex: true })!(undefined)).toBe(false);
  });

  it('the JSON pre-check never rejects a match, and exists only when sound', () => {
    const msgs = ['plain loss 0.1', 'tab\tloss\nline', 'ünïcödé LOSS', 'emoji 🎉 loss', 'quote " loss \\ back'];
    for (const [text, ignoreCase] of [
      ['loss', false],
      ['LOSS', true],
      ['ünïcödé', false],
      ['🎉 l', false],
    ] as const) {
      const m = compileLogSearch({ text, ignoreCase })!;
      expect(m.mayMatchJson).toBeDefined();
      for (const msg of msgs) {
        const json = JSON.stringify({ metric: '', msg, worker: 'w' });
        if (m(msg)) expect(m.mayMatchJson!(json), `${text} in ${msg}`).toBe(true);
      }
      expect(m.mayMatchJson!(JSON.stringify({ msg: 'nothing here' }))).toBe(false);
    }
    expect(compileLogSearch({ text: 'say "hi"' })!.mayMatchJson).toBeUndefined();
    expect(compileLogSearch({ text: 'a\tb' })!.mayMatchJson).toBeUndefined();
    expect(compileLogSearch({ text: 'x', regex: true })!.mayMatchJson).toBeUndefined();
  });

  it('catastrophic patterns stay linear', () => {
    const m = compileLogSearch({ text: '^(a+)+$', regex: true })!;
    const started = performance.now();
    expect(m(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('malformed patterns: 400/21 with the parser message; unsupported backreferences too', () => {
    expect(failure(() => compileLogSearch({ text: 'a(b', regex: true }))).toEqual({
      code: 400,
      subcode: 21,
      message: 'Malformed regular expression: err=missing closing ): `a(b`',
    });
    expect(failure(() => compileLogSearch({ text: '(a)\\1', regex: true })).subcode).toBe(21);
  });

  it('patterns over the length limit: 400/12', () => {
    expect(failure(() => compileLogSearch({ text: 'x'.repeat(MAX_SEARCH_LENGTH + 1) }))).toMatchObject({
      code: 400,
      subcode: 12,
    });
  });
});
