/**
 * What InfluxDB holds and how it writes it in CSV, for the property tests
 * of the readers of its CSV answers (scalar-csv-rows, raw-page-csv).
 */
import fc from 'fast-check';
import { encodeTagValue } from '../../../shared/events/storage-layout.js';

export type Cell = bigint | number | string | null;

/** Text a client may send as a name or worker: quotes, commas, newlines, control characters, lone surrogates, HTML. */
export const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    'loss',
    '"',
    ',',
    'a,"b"',
    ' leading space',
    '\tleading tab',
    '\\.',
    '\\',
    '\\"',
    '\u0000\u0001\u001f\u007f',
    '\n\r\t\b\f',
    'a\r\nb',
    '\ud83d\ude00',
    '\u2028\u2029',
    '\u00a0nbsp',
    '<script>&amp;</script>',
    '~not-base64',
    '__proto__',
    'name,tags,time',
  ),
  fc.string({ maxLength: 12, unit: 'binary' }),
);
/** A tag as stored (encodeTagValue: never empty), or none on this row. */
export const storedTag = fc.oneof(hostileText.map(encodeTagValue), fc.constant(null));
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Integer fields (ts, at, q) and times: int64, so beyond what a double holds exactly too. */
export const int64 = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 53n }),
  fc.constantFrom(0n, -1n, 2n ** 53n + 1n, INT64_MAX, INT64_MIN + 2n, 1_796_169_320_533n, 999_999_999_999_999n),
  fc.bigInt({ min: INT64_MIN + 2n, max: INT64_MAX }),
);
/** Iterations and the no-iteration sentinel (InfluxDB's smallest valid time). */
export const time = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 62n }), fc.constant(-9223372036854775806n), int64);
/** Stored scalar values: any finite double (InfluxDB keeps no NaN or infinity). */
export const value = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1e21,
    9.99e20,
    1e-6,
    1e-7,
    -1e-7,
    5e-324,
    Number.MAX_VALUE,
    0.1,
    123456789012345680000,
    2 ** 53 + 2,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A float as Go's strconv.FormatFloat(x, 'f', -1, 64) writes it: InfluxDB's CSV form. */
function goPlainFloat(x: number): string {
  if (Object.is(x, -0)) return '-0';
  const text = String(x);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (m === null) return text;
  const [, sign, first, rest = '', exponent] = m;
  const digits = first! + rest;
  const point = Number(exponent) + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A cell as Go's encoding/csv writes it (quoted when it holds `,` `"` CR LF or starts with a space). */
export function csvCell(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'bigint') return cell.toString();
  if (typeof cell === 'number') return goPlainFloat(cell);
  const quoted = cell === '\\.' || /[,"\r\n]/.test(cell) || /^\s/u.test(cell);
  return quoted ? `"${cell.replaceAll('"', '""')}"` : cell;
}
