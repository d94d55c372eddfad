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
