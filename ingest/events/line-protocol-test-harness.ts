/**
 * A strict reader of InfluxDB 1.x line protocol, for property tests: it
 * refuses what influxd refuses (measured on influxd 1.6: series key above
 * 65,535 bytes, times outside ±9223372036854775806, integers outside int64,
 * floats that are not finite, raw newlines outside string fields) and
 * answers the unescaped parts so that tests can compare them with the event.
 */

export interface ParsedPoint {
  measurement: string;
  tags: Map<string, string>;
  fields: Map<string, string | number | bigint | boolean>;
  time: bigint;
  /** measurement and tags as written (escaped): what influxd limits to 65,535 bytes */
  seriesKeyBytes: number;
}

const MAX_SERIES_KEY_BYTES = 65_535;
const MAX_TIME = 9_223_372_036_854_775_806n;
const INT64_MAX = 9_223_372_036_854_775_807n;
const INT64_MIN = -9_223_372_036_854_775_808n;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

class Cursor {
  at = 0;
  constructor(readonly text: string) {}

  /** Reads an escaped token up to one of `stops`; `\` escapes the characters in `escapable`. */
  token(stops: string, escapable: string): string {
    let out = '';
    while (this.at < this.text.length) {
      const c = this.text[this.at]!;
      if (c === '\n' || c === '\r') throw new Error(`raw line break at ${this.at}`);
      if (c === '\\' && this.at + 1 < this.text.length && escapable.includes(this.text[this.at + 1]!)) {
        out += this.text[this.at + 1];
        this.at += 2;
        continue;
      }
      if (stops.includes(c)) break;
      out += c;
      this.at += 1;
    }
    return out;
  }

  expect(c: string): void {
    if (this.text[this.at] !== c)
      throw new Error(`expected ${JSON.stringify(c)} at ${this.at}, found ${JSON.stringify(this.text[this.at])}`);
    this.at += 1;
  }

  peek(): string | undefined {
    return this.text[this.at];
  }

  /** A double-quoted field string: `\"` and `\\` are escapes; raw newlines are allowed. */
  quoted(): string {
    this.expect('"');
    let out = '';
    for (;;) {
      if (this.at >= this.text.length) throw new Error('unterminated string field');
      const c = this.text[this.at]!;
      if (c === '\\' && (this.text[this.at + 1] === '"' || this.text[this.at + 1] === '\\')) {
        out += this.text[this.at + 1];
        this.at += 2;
      } else if (c === '"') {
        this.at += 1;
        return out;
      } else {
        out += c;
        this.at += 1;
      }
    }
  }
}

function fieldValue(cursor: Cursor): string | number | bigint | boolean {
  if (cursor.peek() === '"') return cursor.quoted();
  const raw = cursor.token(', ', '');
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^-?\d+i$/.test(raw)) {
    const value = BigInt(raw.slice(0, -1));
    if (value > INT64_MAX || value < INT64_MIN) throw new Error(`integer out of range: ${raw}`);
    return value;
  }
  if (!FLOAT.test(raw) || !Number.isFinite(Number(raw))) throw new Error(`invalid float: ${raw}`);
  return Number(raw);
}

/** Parses one point line, or throws saying what influxd would refuse. */
export function parsePoint(line: string): ParsedPoint {
  const points = parsePoints(line);
  if (points.length !== 1) throw new Error(`${points.length} points where one was expected`);
  return points[0]!;
}

/** Parses points separated by newlines (a newline inside a string field belongs to the field). */
export function parsePoints(text: string): ParsedPoint[] {
  const cursor = new Cursor(text);
  const points = [readPoint(cursor)];
  while (cursor.peek() === '\n') {
    cursor.at += 1;
    points.push(readPoint(cursor));
  }
  return points;
}

function readPoint(cursor: Cursor): ParsedPoint {
  const line = cursor.text;
  const from = cursor.at;
  const measurement = cursor.token(', ', ', ');
  if (measurement === '') throw new Error('empty measurement');
  const tags = new Map<string, string>();
  while (cursor.peek() === ',') {
    cursor.at += 1;
    const key = cursor.token('=', ', =');
    cursor.expect('=');
    const value = cursor.token(', ', ', =');
    if (key === '' || value === '') throw new Error(`empty tag key or value at ${cursor.at}`);
    if (tags.has(key)) throw new Error(`duplicate tag ${key}`);
    tags.set(key, value);
  }
  const seriesKeyBytes = Buffer.byteLength(line.slice(from, cursor.at), 'utf8');
  if (seriesKeyBytes > MAX_SERIES_KEY_BYTES)
    throw new Error(`series key of ${seriesKeyBytes} bytes exceeds ${MAX_SERIES_KEY_BYTES}`);
  cursor.expect(' ');
  const fields = new Map<string, string | number | bigint | boolean>();
  for (;;) {
    const key = cursor.token('=', ', =');
    cursor.expect('=');
    if (key === '' || fields.has(key)) throw new Error(`empty or duplicate field key ${key}`);
    fields.set(key, fieldValue(cursor));
    if (cursor.peek() !== ',') break;
    cursor.at += 1;
  }
  cursor.expect(' ');
  const lineEnd = line.indexOf('\n', cursor.at);
  const timeText = line.slice(cursor.at, lineEnd < 0 ? line.length : lineEnd);
  cursor.at += timeText.length;
  if (!/^-?\d+$/.test(timeText)) throw new Error(`invalid time: ${timeText.slice(0, 40)}`);
  const time = BigInt(timeText);
  if (time > MAX_TIME || time < -MAX_TIME) throw new Error(`time outside InfluxDB's range: ${timeText}`);
  return { measurement, tags, fields, time, seriesKeyBytes };
}
