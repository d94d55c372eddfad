// Line-protocol escaping is the InfluxDB client library's behind a fast path for text with
// nothing to escape: the output must be the library's own for any text.
import { escape } from '@influxdata/influxdb-client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeTagValue, quoteFieldString } from './storage-layout.js';

/** Text of the characters the escapers treat specially, among ordinary, multi-byte and astral ones. */
const tricky = fc.string({
  unit: fc.constantFrom(',', ' ', '=', '\n', '\r', '\t', '"', '\\', "'", 'a', 'Z', '0', '~', 'é', '😀', '\u0000'),
  maxLength: 40,
});
const anyText = fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 200 }));

describe('line-protocol escaping', () => {
  it('equals the library for any text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(escapeTagValue(text)).toBe(escape.tag(text));
        expect(quoteFieldString(text)).toBe(escape.quoted(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('escapes what InfluxDB 1.x line protocol needs', () => {
    expect(escapeTagValue('loss, per epoch=3')).toBe('loss\\,\\ per\\ epoch\\=3');
    expect(quoteFieldString('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
    expect(quoteFieldString('plain')).toBe('"plain"');
  });
});
