// The plain scalar line's reading of numbers against JSON.parse and String(): the double a value
// text names and the text String() prints for it (the J record's), whatever the text; and
// decimal-double.ts against Number() and String() on decimals of 16 and 17 digits, midpoints
// between doubles included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalRead, readDecimal } from './decimal-double.js';
import { PlainScalarLine, readPlainScalarLine } from './plain-scalar-line.js';

const lineWith = (value: string, iter = '12', timestamp = '1718000000123') =>
  Buffer.from(
    `{"timestamp": ${timestamp}, "type": "training_stats_scalar", "task": "p-t3", "iter": ${iter}, "metric": "metric0", "variant": "variant3", "value": ${value}, "model_event": false, "allow_locked": false}`,
  );

/** What the fused path reads of a value text: undefined when the line is not plain. */
function readValue(text: string): { value: number; text: string } | undefined {
  const bytes = lineWith(text);
  const line = new PlainScalarLine();
  if (readPlainScalarLine(bytes, 0, bytes.length, line) < 0) return undefined;
  return {
    value: line.value,
    text: line.valueText ?? bytes.toString('latin1', line.valueStart, line.valueEnd),
  };
}

/** The general path: parseScalar's `|| 0` after JSON.parse, and String() of it. */
function expectAsGeneral(text: string): void {
  const read = readValue(text);
  if (read === undefined) return;
  const value = (JSON.parse(text) as number) || 0;
  expect(Object.is(read.value, value), `${text}: ${read.value} against ${value}`).toBe(true);
  expect(read.text, text).toBe(String(value));
}

/** Python's repr of a float (the ClearML SDK's json.dumps). */
function pythonRepr(x: number): string {
  const abs = Math.abs(x);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) return x.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  const text = String(x);
  return Number.isInteger(x) ? `${text}.0` : text;
}

/** What SDK scalars are: float32 values (a tensor's item()), ratios, any double of a plausible size. */
const sdkValue = fc.oneof(
  fc.float({ min: Math.fround(1e-4), max: Math.fround(1e5), noNaN: true }),
  fc.integer({ min: 1, max: 1e9 }).map((i) => i / 7),
  fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
);
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
/** Doubles where SDK values live, printed with 15 to 17 digits. */
const typical = fc.double({ min: -1e6, max: 1e6, noNaN: true });

describe('a plain line', () => {
  it.each([
    ['25.714285714285715', 25.714285714285715, '25.714285714285715'],
    ['1.0', 1, '1'],
    ['100.500', 100.5, '100.5'],
    ['-0', 0, '0'],
    ['-0.000', 0, '0'],
    ['0.000001', 0.000001, '0.000001'],
    ['0.0000001', 1e-7, '1e-7'],
    ['1e-05', 0.00001, '0.00001'],
    ['1E2', 100, '100'],
    ['1e21', 1e21, '1e+21'],
    ['0.30000000000000001', 0.3, '0.3'],
    ['9007199254740993', 9007199254740992, '9007199254740992'],
    ['123456789012345678', 123456789012345680, '123456789012345680'],
  ])('value %s reads as %d, printed %s', (text, value, printed) => {
    expect(readValue(text)).toEqual({ value, text: printed });
  });

  it.each(['1e400', '-1e400', '01', '+1', '.5', '1.', 'NaN', '"1"', 'null', '1e', '-'])(
    'value %s is not plain',
    (text) => {
      expect(readValue(text)).toBeUndefined();
    },
  );

  it('any double, as JavaScript, Python or with 15 to 17 digits prints it: the value and text of the general path', () => {
    fc.assert(
      fc.property(fc.oneof(finite, typical), fc.integer({ min: 15, max: 17 }), (x, digits) => {
        expectAsGeneral(JSON.stringify(x));
        expectAsGeneral(pythonRepr(x));
        expectAsGeneral(x.toPrecision(digits).replace(/e\+?/, 'e'));
        if (Math.abs(x) < 1e21) expectAsGeneral(x.toFixed(Math.min(20, digits)));
      }),
      { numRuns: 20_000 },
    );
  });

  it('any decimal text: the value and text of the general path', () => {
    fc.assert(fc.property(fc.stringMatching(/^-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,24})?$/), expectAsGeneral), {
      numRuns: 20_000,
    });
  });

  it('integers and iterations: plain only when the general path prints their text', () => {
    const line = new PlainScalarLine();
    for (const iter of ['0', '-1', '-2147483648', '999999999999999']) {
      const bytes = lineWith('1', iter);
      expect(readPlainScalarLine(bytes, 0, bytes.length, line), iter).toBe(bytes.length);
      expect(line.iter).toBe(Number(iter));
    }
    for (const iter of ['-0', '1000000000000000', '1.0', '1e3', '"1"']) {
      const bytes = lineWith('1', iter);
      expect(readPlainScalarLine(bytes, 0, bytes.length, line), iter).toBe(-1);
    }
    for (const timestamp of ['-0', '-1', '253402300800000', '1718000000123.5']) {
      const bytes = lineWith('1', '1', timestamp);
      expect(readPlainScalarLine(bytes, 0, bytes.length, line), timestamp).toBe(-1);
    }
  });
});

describe('decimal-double', () => {
  /** M / 10^scale as text, M's digits given. */
  function text(digits: string, scale: number): string {
    if (scale === 0) return digits;
    const padded = digits.padStart(scale + 1, '0');
    return `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  }

  function check(digits: string, scale: number): boolean {
    const decided = readDecimal(Number(digits.slice(0, -8)), Number(digits.slice(-8)), digits.length, scale);
    if (!decided) return false;
    const written = text(digits, scale);
    const value = Number(written);
    expect(decimalRead.value, written).toBe(value);
    // String()'s digits whatever its format (toExponential() prints the same shortest digits).
    const printed = value.toExponential().replace(/e.*$/, '').replace('.', '');
    expect(decimalRead.shortest, written).toBe(printed === digits);
    return true;
  }

  const mantissa = fc.stringMatching(/^[1-9][0-9]{14,15}[1-9]$/);

  it('16 and 17 digits at any scale: the double of Number(), and whether String() prints the digits', () => {
    let decided = 0;
    fc.assert(
      fc.property(mantissa, fc.integer({ min: 0, max: 22 }), (digits, scale) => {
        if (check(digits, scale)) decided += 1;
      }),
      { numRuns: 50_000 },
    );
    // Undecided near a boundary (for integers beyond 2^53, often exactly on one: a tie).
    expect(decided).toBeGreaterThan(47_500);
  });

  it('the shortest digits of doubles (what Python and JavaScript print) are found shortest', () => {
    let shortest = 0;
    let undecided = 0;
    fc.assert(
      fc.property(sdkValue, (x) => {
        const printed = String(Math.abs(x));
        const match = /^(\d+)\.?(\d*)$/.exec(printed);
        if (match === null) return;
        const all = `${match[1]}${match[2]}`.replace(/^0+/, '');
        if (all.length < 16 || all.length > 17 || all.endsWith('0')) return;
        if (check(all, match[2]!.length) && decimalRead.shortest) shortest += 1;
        else undecided += 1;
      }),
      { numRuns: 20_000 },
    );
    expect(shortest).toBeGreaterThan(10_000);
    // The fused path's common case: mostly decided (float32 values often end in an exact tie at digit 18).
    expect(undecided).toBeLessThan(shortest / 10);
  });

  it('midpoints between doubles and their neighbours', () => {
    for (let k = 0; k < 2000; k++) {
      // Integers beyond 2^53: every odd one is a midpoint (or an exact double's neighbour).
      const base = 2 ** 53 + k * 7919;
      for (const n of [base, base + 1, base + 2, base + 3]) {
        const digits = String(n);
        if (!digits.endsWith('0')) check(digits, 0);
      }
    }
  });
});
