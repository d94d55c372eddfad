// events.md §2.2: NDJSON lines end with \n, \r\n or \r; whatever the chunking of the body, the lines
// are the same, a line over MAX_LINE_BYTES is refused (413), and a long line costs linear time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NdjsonLines } from './ndjson-lines.js';
import { cut } from './plain-scalar-test-harness.js';

/** The lines of the body as the chunks arrive. */
async function linesOf(chunks: Buffer[], maxLineBytes = 1 << 30): Promise<string[]> {
  const splitter = new NdjsonLines(maxLineBytes);
  const lines = chunks.flatMap((chunk) => splitter.linesOf(chunk));
  const last = splitter.end();
  return last === undefined ? lines : [...lines, last];
}

/** What a whole-body split gives: every piece, except an empty one after a final break. */
function reference(text: string): string[] {
  const pieces = text.split(/\r\n|\r|\n/);
  if (pieces[pieces.length - 1] === '') pieces.pop();
  return pieces;
}

describe('NdjsonLines', () => {
  it.each([
    ['a\nb\nc', ['a', 'b', 'c']],
    ['a\r\nb\rc\n', ['a', 'b', 'c']],
    ['\n\n  \nx', ['', '', '  ', 'x']],
    ['é€😀\n{"a":1}', ['é€😀', '{"a":1}']],
    ['', []],
  ])('%j', async (text, expected) => {
    expect(await linesOf([Buffer.from(text)])).toEqual(expected);
  });

  it('any body, any chunking: the lines of the whole body', async () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('\n', '\r', '\r\n', '\n\r', 'é', '😀', '{"a": "b"}'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (pieces, offsets) => {
          const text = pieces.join('');
          expect(await linesOf(cut(Buffer.from(text), offsets))).toEqual(reference(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a line over the limit, counted in bytes, whether it ends or not', async () => {
    const tooLong = { id: 'line_too_long', message: 'Request line too long (limit 10 bytes)' };
    await expect(linesOf([Buffer.from('0123456789\nabc')], 10)).resolves.toEqual(['0123456789', 'abc']);
    await expect(linesOf([Buffer.from('01234567890\n')], 10)).rejects.toMatchObject(tooLong);
    await expect(linesOf([Buffer.from('012345'), Buffer.from('67890')], 10)).rejects.toMatchObject(tooLong);
    await expect(linesOf([Buffer.from('ok\n€€€€\nok')], 10)).rejects.toMatchObject(tooLong);
    await expect(linesOf([Buffer.from('ok\n€€€\nok')], 10)).resolves.toEqual(['ok', '€€€', 'ok']);
  });

  it("lines left in a chunk's region read, line by line, as linesOf decodes them, and refuse as it does", () => {
    /** Each chunk's lines either way, or the error, in order. */
    function split(chunks: Buffer[], maxLineBytes: number, withRegion: boolean): unknown[] {
      const splitter = new NdjsonLines(maxLineBytes);
      const region = { start: 0, end: -1 };
      const seen: unknown[] = [];
      try {
        for (const chunk of chunks) {
          if (!withRegion) {
            seen.push(...splitter.linesOf(chunk));
            continue;
          }
          seen.push(...splitter.linesAndRegionOf(chunk, region));
          // As add-batch-operation.ts reads a region: up to each `\n`, each line decoded alone.
          for (let at = region.start; region.end >= region.start;) {
            let stop = chunk.indexOf(0x0a, at);
            if (stop < 0 || stop > region.end) stop = region.end;
            seen.push(chunk.toString('utf8', at, stop));
            if (stop >= region.end) break;
            at = stop + 1;
          }
        }
        seen.push(splitter.end());
      } catch (error) {
        seen.push(String(error));
      }
      return seen;
    }
    const byte = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.constantFrom(0x0a, 0x0a, 0x0d, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0x80),
    );
    fc.assert(
      fc.property(
        fc.array(byte, { maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.oneof(fc.constant(1 << 30), fc.integer({ min: 1, max: 120 })),
        (bytes, offsets, maxLineBytes) => {
          const chunks = cut(Buffer.from(bytes), offsets);
          expect(split(chunks, maxLineBytes, true)).toEqual(split(chunks, maxLineBytes, false));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('a 32 MiB line in 64 KiB chunks is split in linear time', async () => {
    const line = Buffer.alloc(32 * 1024 * 1024, 'x');
    const chunks = cut(
      Buffer.concat([line, Buffer.from('\nend')]),
      Array.from({ length: 512 }, (_, i) => (i + 1) * 65_536),
    );
    const started = performance.now();
    const lines = await linesOf(chunks);
    // Generous: linear work is tens of milliseconds; the quadratic splitter took minutes here.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(lines.map((l) => l.length)).toEqual([line.length, 3]);
  });
});
