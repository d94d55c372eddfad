// Property tests of the field parsers behind events.md §1.3 steps 6-10 (event-fields.ts) and of the
// echo of client values: each agrees with the rule's plain statement for every generated value,
// not only for the rows of event-normalizer.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkedTimestamp, isWellFormedId, parseIter, parseScalar, textError, textRule } from './event-fields.js';
import { echo, MAX_ECHO_LENGTH, MAX_TIMESTAMP, MIN_ITER } from './event-limits.js';

const RUNS = 1000;
const ITER_REASONS = [
  "Invalid value for field 'iter'",
  'Iteration number should not exceed 9223372036854775807',
  'Iteration number should not be below -9200000000000000000',
];
const TIMESTAMP_REASONS = [
  "Invalid value for field 'timestamp'",
  "Field 'timestamp' out of range (0 to 253402300799999 ms)",
];

type WellFormed = string & { isWellFormed(): boolean };
const isWellFormed = (s: string) => (s as WellFormed).isWellFormed();

/** Strings near the id rule: id characters and a few others, around the 128-character cap. */
const idLike = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'aZ09_.-'), minLength: 120, maxLength: 135 }),
  fc.string({ unit: fc.constantFrom(...'aZ09_.-:~ é😀\n,=\\"/'), maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const whitespace = fc.constantFrom('', ' ', '\t', '\n', ' \u00a0');
const inRangeMs = fc.integer({ min: 0, max: MAX_TIMESTAMP });

describe('§1.3.6 ids', () => {
  it('an id is well-formed exactly when it matches [A-Za-z0-9_.-]{1,128}', () => {
    fc.assert(
      fc.property(idLike, (id) => {
        expect(isWellFormedId(id)).toBe(/^[A-Za-z0-9_.-]{1,128}$/.test(id));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('§1.3.7 iter', () => {
  it('an integer, as a number or as a signed decimal string with surrounding whitespace, is itself', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), whitespace, whitespace, (n, before, after) => {
        const expected = n + 0;
        expect(parseIter(n)).toBe(expected);
        expect(parseIter(`${before}${n}${after}`)).toBe(expected);
        if (n >= 0) expect(parseIter(`+${n}`)).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('any double is truncated toward zero, or refused with a range reason', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (d) => {
        const iter = parseIter(d);
        if (typeof iter === 'string') {
          expect(ITER_REASONS.slice(1)).toContain(iter);
          expect(d >= 2 ** 63 || d < MIN_ITER).toBe(true);
        } else {
          expect(iter).toBe(Math.trunc(d) + 0);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('any string is an integer it spells, or refused', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'0123456789+-. e\t'), maxLength: 25 }),
          fc.string({ maxLength: 10 }),
        ),
        (s) => {
          const iter = parseIter(s);
          if (typeof iter === 'string') expect(ITER_REASONS).toContain(iter);
          else {
            expect(s).toMatch(/^\s*[+-]?\d+\s*$/);
            expect(iter).toBe(Number(s) + 0);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('§1.3.8 timestamps', () => {
  it('every ms from 1970 to 9999 reads back from a number, a numeric string and its ISO-8601 text', () => {
    fc.assert(
      fc.property(inRangeMs, whitespace, (ms, around) => {
        expect(checkedTimestamp(ms)).toBe(ms);
        expect(checkedTimestamp(`${around}${ms}${around}`)).toBe(ms);
        expect(checkedTimestamp(new Date(ms).toISOString())).toBe(ms);
      }),
      { numRuns: RUNS },
    );
  });

  it('an ISO-8601 date-time with an offset (±hh:mm, ±hhmm, or ±hh for whole hours) reads back as its instant', () => {
    const DAY = 86_400_000;
    fc.assert(
      fc.property(
        fc.integer({ min: DAY, max: MAX_TIMESTAMP - DAY }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        fc.boolean(),
        (ms, offset, colon) => {
          const local = new Date(ms + offset * 60_000).toISOString().slice(0, -1);
          const hh = String(Math.trunc(Math.abs(offset) / 60)).padStart(2, '0');
          const mm = String(Math.abs(offset) % 60).padStart(2, '0');
          const sign = offset < 0 ? '-' : '+';
          expect(checkedTimestamp(`${local}${sign}${hh}${colon ? ':' : ''}${mm}`)).toBe(ms);
          if (mm === '00') expect(checkedTimestamp(`${local}${sign}${hh}`)).toBe(ms);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a date is read exactly when it is a day of the calendar', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (year, month, day) => {
          const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          const utc = new Date(Date.UTC(year, month - 1, day));
          const exists =
            month >= 1 && month <= 12 && day >= 1 && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day;
          expect(checkedTimestamp(text)).toBe(exists ? utc.getTime() : "Invalid value for field 'timestamp'");
          expect(checkedTimestamp(`${text}T12:00:00Z`)).toBe(
            exists ? utc.getTime() + 43_200_000 : "Invalid value for field 'timestamp'",
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('any number is an integer in range or refused with a timestamp reason', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer()), (value) => {
        const ms = checkedTimestamp(value);
        if (typeof ms === 'string') expect(TIMESTAMP_REASONS).toContain(ms);
        else {
          expect(Number.isSafeInteger(ms) && ms >= 0 && ms <= MAX_TIMESTAMP).toBe(true);
          expect(Object.is(ms, -0)).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('§1.3.10 scalar values', () => {
  it('every finite double is itself, as a number and as the string JavaScript prints for it', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(parseScalar(x)).toBe(x + 0);
        expect(parseScalar(String(x))).toBe(x + 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('NaN and infinities are refused, as numbers and as text', () => {
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(parseScalar(x)).toBe("Invalid value for field 'value'");
      expect(parseScalar(String(x))).toBe("Invalid value for field 'value'");
    }
  });
});

describe('§1.3.9 strings, and the echo of client values', () => {
  const rule = textRule('metric', 4096);

  it('a string passes exactly when it is valid Unicode within its cap', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 30 }),
          fc.string({ unit: fc.constantFrom('a', '😀', '\ud800'), minLength: 4090, maxLength: 4100 }),
        ),
        (s) => {
          expect(textError(s, rule) === undefined).toBe(isWellFormed(s) && s.length <= 4096);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('an echo is the value up to 256 characters, else its head and …, and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom('a', '😀'), minLength: 250, maxLength: 300 }),
          fc.string({ unit: 'binary', maxLength: 300 }),
        ),
        (s) => {
          const shown = echo(s);
          if (s.length <= MAX_ECHO_LENGTH) expect(shown).toBe(s);
          else {
            expect(shown.endsWith('…')).toBe(true);
            expect(s.startsWith(shown.slice(0, -1))).toBe(true);
            expect(shown.length).toBeLessThanOrEqual(MAX_ECHO_LENGTH + 1);
            if (isWellFormed(s)) expect(isWellFormed(shown)).toBe(true);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
