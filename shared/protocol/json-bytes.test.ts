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
});
