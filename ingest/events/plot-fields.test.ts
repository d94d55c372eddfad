import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxJsonContainers } from '../../shared/protocol/client-object.js';
import { extractSourceUrls, isValidPlotJson, plotLength } from './plot-fields.js';

describe('plotLength', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(plotLength('{"data": [], "layout": {}}')).toBe(26);
    expect(plotLength('😀a')).toBe(2);
    expect(plotLength('é')).toBe(1);
  });

  it('is 0 for empty or absent plot_str', () => {
    expect(plotLength('')).toBe(0);
    expect(plotLength(undefined)).toBe(0);
    expect(plotLength(null)).toBe(0);
  });

  it('counts a lone surrogate as one code point', () => {
    expect(plotLength('\uD800x')).toBe(2);
    expect(plotLength('x\uDC00')).toBe(2);
  });
});

describe('extractSourceUrls', () => {
  it('finds embedded image sources with either quote style and optional space', () => {
    const plot =
      '{"layout": {"images": [{"source": "https://files/a.png"}, {\'source\':\'s3://bucket/b.jpg\'}, {"Source":"http://x/c"}]}}';
    expect(extractSourceUrls(plot)?.sort()).toEqual(['http://x/c', 'https://files/a.png', 's3://bucket/b.jpg']);
  });

  it('returns distinct values', () => {
    const plot = '[{"source": "https://a/x.png"}, {"source": "https://a/x.png"}]';
    expect(extractSourceUrls(plot)).toEqual(['https://a/x.png']);
  });

  it('needs a URL scheme', () => {
    expect(extractSourceUrls('{"source": "data:image/png;base64,AAA"}')).toBeUndefined();
    expect(extractSourceUrls('{"source": "/relative/path.png"}')).toBeUndefined();
    expect(extractSourceUrls('{"source": "1http://x"}')).toBeUndefined();
    expect(extractSourceUrls('{"source": "git+ssh://host/repo"}')).toEqual(['git+ssh://host/repo']);
  });

  it('accepts at most one space after the colon and none before it', () => {
    expect(extractSourceUrls('{"source":  "https://a"}')).toBeUndefined();
    expect(extractSourceUrls('{"source" : "https://a"}')).toBeUndefined();
  });

  it('needs the member name to be exactly source', () => {
    expect(extractSourceUrls('{"datasource": "https://a"}')).toBeUndefined();
    expect(extractSourceUrls('{"source_url": "https://a"}')).toBeUndefined();
  });

  it('ends the value at the quote that opened it', () => {
    expect(extractSourceUrls(`{"source": "https://a/it's.png"}`)).toEqual(["https://a/it's.png"]);
  });

  it('is undefined when there is nothing', () => {
    expect(extractSourceUrls('')).toBeUndefined();
    expect(extractSourceUrls('{"data": []}')).toBeUndefined();
    expect(extractSourceUrls(undefined)).toBeUndefined();
  });
});

describe('isValidPlotJson', () => {
  it('accepts JSON and rejects the rest', () => {
    expect(isValidPlotJson('{"data": [], "layout": {}}')).toBe(true);
    expect(isValidPlotJson('[1, 2]')).toBe(true);
    expect(isValidPlotJson('{"data": [')).toBe(false);
    expect(isValidPlotJson('not json')).toBe(false);
  });

  it('treats an empty plot as invalid', () => {
    expect(isValidPlotJson('')).toBe(false);
    expect(isValidPlotJson(undefined)).toBe(false);
  });

  it("accepts the non-finite literals Python's json.loads accepts", () => {
    expect(isValidPlotJson('{"y": [NaN, Infinity, -Infinity, 1.5e3]}')).toBe(true);
    expect(isValidPlotJson('{"y": [NaN, }')).toBe(false);
    expect(isValidPlotJson('{"y": nan}')).toBe(false);
    expect(isValidPlotJson('{"y": +Infinity}')).toBe(false);
    expect(isValidPlotJson('{"a": NaN} x')).toBe(false);
    expect(isValidPlotJson('{"a": "Na\\u00e9N", "b": [NaN, {"c": [[], {}]}]}')).toBe(true);
    expect(isValidPlotJson('{"a" NaN}')).toBe(false);
    expect(isValidPlotJson('["NaN\n", NaN]')).toBe(false);
    expect(isValidPlotJson('[01, NaN]')).toBe(false);
    expect(isValidPlotJson('{"a": NaN,}')).toBe(false);
  });

  it('handles deep nesting without recursion', () => {
    const deep = '['.repeat(100_000) + 'NaN' + ']'.repeat(100_000);
    expect(isValidPlotJson(deep)).toBe(true);
  });

  // A plot with more objects and lists than JSON.parse is given elsewhere is checked by the syntax
  // scan alone; its answer must be JSON.parse's (Python's, for the non-finite literals).
  const parses = (text: string) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  const element = fc.constantFrom('{}', '[]', '[{}]', '{"a": []}', '1.5', '"x]"', '"\\""', '{"b": {}}');
  const containerHeavy = fc
    .tuple(fc.array(element, { minLength: 6_000, maxLength: 9_000 }), fc.constantFrom(',', ', ', ',\n'))
    .map(([list, separator]) => `{"data": [${list.join(separator)}]}`);
  // Edits that break the text in the places a syntax check can get wrong.
  const edit = fc.tuple(
    fc.nat(),
    fc.constantFrom('', ',', ']', '}', '{', '[', '"', ':', '\\', 'NaN', '-Infinity', ' ', '01', 'tru'),
    fc.integer({ min: 0, max: 2 }),
  );

  it('a container-heavy plot is valid exactly when it parses, whatever is cut or inserted', () => {
    fc.assert(
      fc.property(containerHeavy, fc.array(edit, { maxLength: 2 }), (text, edits) => {
        for (const [at, insert, cut] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + cut);
        }
        expect(maxJsonContainers(text.length)).toBeLessThan(text.length / 2);
        if (text.includes('NaN') || text.includes('Infinity')) {
          // Python's literals where JSON has a number: valid exactly when the text with a number there
          // parses (spaced, so that it never joins the characters beside it into one token).
          expect(isValidPlotJson(text)).toBe(parses(text.replace(/-?Infinity|NaN/g, ' 0 ')));
        } else {
          expect(isValidPlotJson(text)).toBe(parses(text));
        }
      }),
      { numRuns: 300 },
    );
  });
});
