import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEndpointPath } from './endpoint-path.js';

describe('parseEndpointPath (protocol.md §2.1)', () => {
  it.each([
    ['/reports.create', 'reports.create', '2.31'],
    ['reports.create', 'reports.create', '2.31'],
    ['/reports.create/', 'reports.create', '2.31'],
    ['/v2.23/reports.create', 'reports.create', '2.23'],
    ['/v2.5/events.add_batch/', 'events.add_batch', '2.5'],
    ['/v10/reports.get_tags', 'reports.get_tags', '10'],
    ['/_a._b', '_a._b', '2.31'],
  ])('accepts %s', (path, name, version) => {
    const parsed = parseEndpointPath(path);
    expect(parsed.name).toBe(name);
    expect(parsed.version.text).toBe(version);
  });

  it.each([
    '/v2/reports.create',
    '/api/reports.create',
    '/reports',
    '/r.create',
    '/v2.3.1/reports.create',
    '/reports.c',
    '/1a.create',
    '/v2.23',
  ])('rejects %s', (path) => {
    expect(() => parseEndpointPath(path)).toThrow(`Invalid request path ${path}`);
  });

  it('orders versions numerically (2.9 < 2.12)', () => {
    expect(parseEndpointPath('/v2.12/a1.b1').version.minor).toBe(12);
  });
});

describe('parseEndpointPath of generated paths', () => {
  // The pattern until 2026-12-02: `\d+\.?\d+` backtracked quadratically over a run of digits.
  const REFERENCE = /^\/?(?:v(\d+\.?\d+)\/)?([A-Za-z_][A-Za-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_]+)\/?$/;
  const outcome = (run: () => unknown) => {
    try {
      return { ok: run() };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };

  it('accept and refuse what the reference pattern did, with the same name and version', () => {
    const pathText = fc.string({ unit: fc.constantFrom('/', 'v', '1', '0', '.', 'a', '_', 'Z', '!'), maxLength: 16 });
    fc.assert(
      fc.property(pathText, (text) => {
        const m = REFERENCE.exec(text);
        const got = outcome(() => parseEndpointPath(text));
        if (!m) expect(got).toEqual({ error: `Invalid request path ${text}` });
        else if ('ok' in got) {
          const parsed = got.ok as ReturnType<typeof parseEndpointPath>;
          expect(parsed.name).toBe(`${m[2]}.${m[3]}`);
          expect(parsed.version.text).toBe(m[1] ?? '2.31');
        } else expect(m[1]).toBeDefined(); // an out-of-range version: refused by the same check as before
      }),
      { numRuns: 5000 },
    );
  });
});
