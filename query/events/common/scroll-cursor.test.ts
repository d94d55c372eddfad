import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, invalidScrollIdError } from './scroll-cursor.js';

const secret = 'server-secret';
const payload = { t: '8f1c2d', p: 120, n: 1730, m: [['loss', ['train']]] };

describe('scroll cursors', () => {
  it('round-trips the payload', () => {
    const token = encodeCursor(secret, 'company-a', payload);
    expect(decodeCursor(secret, 'company-a', token)).toEqual(payload);
  });

  it('is short and URL-safe', () => {
    const token = encodeCursor(secret, 'company-a', { p: 5 });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(token.length).toBeLessThan(40);
  });

  it("refuses another company's token", () => {
    const token = encodeCursor(secret, 'company-a', payload);
    expect(decodeCursor(secret, 'company-b', token)).toBeUndefined();
  });

  it('refuses a token signed with another secret or for another purpose', () => {
    const token = encodeCursor(secret, 'company-a', payload, 'get_task_events');
    expect(decodeCursor('other-secret', 'company-a', token, 'get_task_events')).toBeUndefined();
    expect(decodeCursor(secret, 'company-a', token, 'get_task_plots')).toBeUndefined();
    expect(decodeCursor(secret, 'company-a', token, 'get_task_events')).toEqual(payload);
  });

  it('keeps company and purpose boundaries apart', () => {
    const token = encodeCursor(secret, 'ab', payload, 'c');
    expect(decodeCursor(secret, 'a', token, 'bc')).toBeUndefined();
  });

  it('refuses tampered and malformed tokens', () => {
    const token = encodeCursor(secret, 'company-a', payload);
    const [body, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...payload, p: 0 })).toString('base64url');
    const flipped = sig[0] === 'A' ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
    const lastBits = `${sig.slice(0, -1)}${String.fromCharCode(sig.charCodeAt(21) ^ 1)}`;
    for (const bad of [
      `${forged}.${sig}`,
      `${body}.${flipped}`,
      `${body}.${lastBits}`,
      body,
      '',
      'null',
      `${body}.${sig}x`,
      `${body}..${sig}`,
      'x'.repeat(20_000),
    ]) {
      expect(decodeCursor(secret, 'company-a', bad), bad.slice(0, 40)).toBeUndefined();
    }
  });

  it('signs as HMAC-SHA256 of company, purpose and body, whether the MAC was made before or not', () => {
    // The token's definition written out (the module's comment): a kept MAC must be the one HMAC gives.
    const expected = (key: string, company: string, purpose: string, value: object) => {
      const body = Buffer.from(JSON.stringify(value)).toString('base64url');
      const input = `${company.length}:${company}\0${purpose.length}:${purpose}\0${body}`;
      return `${body}.${createHmac('sha256', key).update(input).digest().subarray(0, 16).toString('base64url')}`;
    };
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (key, company, purpose, value) => {
          const first = encodeCursor(key, company, value, purpose);
          expect(first).toBe(expected(key, company, purpose, value));
          expect(encodeCursor(key, company, value, purpose)).toBe(first);
          expect(decodeCursor(key, company, first, purpose)).toEqual(JSON.parse(JSON.stringify(value)));
        },
      ),
    );
  });

  it("never answers one secret's MAC for another's, however recently made", () => {
    const [a, b] = [encodeCursor('secret-a', 'company-a', payload), encodeCursor('secret-b', 'company-a', payload)];
    expect(a).not.toBe(b);
    expect(encodeCursor('secret-a', 'company-a', payload)).toBe(a);
    expect(decodeCursor('secret-b', 'company-a', a)).toBeUndefined();
    expect(decodeCursor('secret-a', 'company-a', b)).toBeUndefined();
    expect(decodeCursor('secret-b', 'company-a', b)).toEqual(payload);
  });

  it('refuses a validly signed payload that is not an object', () => {
    const token = encodeCursor(secret, 'company-a', [1, 2] as unknown as object);
    expect(decodeCursor(secret, 'company-a', token)).toBeUndefined();
  });

  it('builds the 400/1104 error', () => {
    const error = invalidScrollIdError('abc');
    expect([error.entry.code, error.entry.subcode]).toEqual([400, 1104]);
    expect(error.message).toBe('Invalid scroll id: scroll_id=abc');
    expect(invalidScrollIdError(undefined).message).toBe('Invalid scroll id: scroll_id=None');
  });
});
