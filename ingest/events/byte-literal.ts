/**
 * Bytes known in advance (a member name, a literal, a task or series name
 * seen before), compared with a buffer's bytes four at a time: a DataView's
 * 32-bit reads are inlined by V8, and byte by byte the comparisons were a
 * fifth of reading a plain scalar line (plain-scalar-line.ts).
 */
export class ByteLiteral {
  readonly bytes: Buffer;
  /** the bytes' little-endian 32-bit words, the last 0-3 bytes left out */
  readonly words: number[] = [];

  constructor(
    /** Latin-1 (every character a byte; ASCII in practice). */
    readonly text: string,
  ) {
    this.bytes = Buffer.from(text, 'latin1');
    for (let i = 0; i + 4 <= this.bytes.length; i += 4) this.words.push(this.bytes.readUInt32LE(i));
  }
}

/** A view of the buffer last compared against (one per chunk: chunks hold many lines). */
let view: DataView = new DataView(new ArrayBuffer(0));
let viewed: Buffer | undefined;

/** Whether `bytes[at, end)` are `expected`'s bytes. */
export function sameBytes(bytes: Buffer, at: number, end: number, expected: ByteLiteral): boolean {
  const length = expected.bytes.length;
  if (end - at !== length) return false;
  if (bytes !== viewed) {
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    viewed = bytes;
  }
  const { words } = expected;
  let i = 0;
  for (; i < words.length; i++) if (view.getUint32(at + 4 * i, true) !== words[i]) return false;
  for (i *= 4; i < length; i++) if (bytes[at + i] !== expected.bytes[i]) return false;
  return true;
}
