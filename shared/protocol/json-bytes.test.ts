import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytesWriter } from './json-bytes.js';

describe('JsonBytesWriter', () => {
  it('joins text and stored bytes into one UTF-8 JSON text, growing as needed', () => {
    const out = new JsonBytesWriter(4);
    const stored = Buffer.from('{"msg":"naïve ✓ 😀","n":1}');
    out.text('{"events":[').bytes(stored).text(',').bytes(Buffer.from('x{"k":"é"}'), 1).text('],"t":"∑"}');
    const length = out.byteLength;
    const bytes = out.finish();
    expect(bytes.length).toBe(length);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ events: [{ msg: 'naïve ✓ 😀', n: 1 }, { k: 'é' }], t: '∑' });
  });

  it('keeps long text whole when one piece outgrows the buffer several times', () => {
    const long = 'ü'.repeat(100_000);
    const bytes = new JsonBytesWriter(8).text('"').text(long).text('"').finish();
    expect(JSON.parse(bytes.toString('utf8'))).toBe(long);
  });

  it('wraps the answer in an envelope head and tail, short or longer than the room kept in front', () => {
    const write = () => new JsonBytesWriter(2).reserve(100).text('{"a":').bytes(Buffer.from('"é"')).text('}');
    expect(JSON.parse(write().finish('{"meta":{"m":"ø"},"data":', '}').toString())).toEqual({
      meta: { m: 'ø' },
      data: { a: 'é' },
    });
    const longMeta = 'ø'.repeat(5000);
    expect(JSON.parse(write().finish(`{"meta":"${longMeta}","data":`, '}').toString())).toEqual({
      meta: longMeta,
      data: { a: 'é' },
    });
  });

  it('writes spans as the bytes they cover, in order, whether they follow one another or not', () => {
    const source = fc.uint8Array({ minLength: 1, maxLength: 64 });
    const piece = fc.oneof(
      fc.record({ span: fc.tuple(fc.nat(), fc.nat()), of: fc.nat({ max: 1 }) }),
      fc.record({ text: fc.string({ maxLength: 4 }) }),
    );
    fc.assert(
      fc.property(fc.tuple(source, source), fc.array(piece, { maxLength: 20 }), (sources, pieces) => {
        const out = new JsonBytesWriter(2);
        const expected: Buffer[] = [];
        for (const p of pieces) {
          if ('text' in p) {
            out.text(p.text);
            expected.push(Buffer.from(p.text));
            continue;
          }
          const bytes = sources[p.of]!;
          const from = p.span[0] % (bytes.length + 1);
          const to = from + (p.span[1] % (bytes.length - from + 1));
          out.span(bytes, from, to);
          expected.push(Buffer.from(bytes.subarray(from, to)));
        }
        expect(out.finish().equals(Buffer.concat(expected))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
