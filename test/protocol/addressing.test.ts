// protocol.md §2 (path forms, methods, versions, CORS) and §4 (which error wins), over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTarget } from '../../query/query-target.js';
import { combineModules, echoTarget } from '../harness/echo-operations.js';
import { asHeaders, httpRequest } from '../harness/http-request.js';
import { startHarness, type Harness } from '../harness/service-harness.js';

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({
    target: 'query',
    env: { CORS_ALLOWED_ORIGINS: 'https://app.example.com,https://ui.example.com' },
    modules: { query: combineModules(queryTarget, echoTarget) },
  });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

async function raw(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const response = await httpRequest(`${h.baseUrl}${path}`, init);
  const { text } = response;
  return {
    status: response.status,
    text,
    json: text ? JSON.parse(text) : undefined,
    headers: asHeaders(response.headers),
  };
}

const auth = () => ({ authorization: `Bearer ${token}` });

describe('path forms (§2.1)', () => {
  it.each([
    '/test.echo',
    '/test.echo/',
    '/v2.23/test.echo',
    '/v2.5/test.echo/',
    '/v10/test.echo',
    '/v1.0/test.echo',
    '/v99.99/test.echo',
  ])('accepts %s', async (path) => {
    const r = await raw(path, { headers: auth() });
    expect(r.status).toBe(200);
    expect(r.json.meta.result_code).toBe(200);
    expect(r.json.meta.endpoint.name).toBe('test.echo');
  });

  it.each(['/v2/test.echo', '/api/test.echo', '/test', '/t.echo', '/v2.3.1/test.echo', '/test.echo.more'])(
    'rejects %s with 400/0',
    async (path) => {
      const r = await raw(path, { headers: auth() });
      expect(r.status).toBe(400);
      expect(r.json.meta).toMatchObject({
        result_code: 400,
        result_subcode: 0,
        result_msg: `Invalid request path ${path}`,
      });
      expect(r.json.meta.endpoint).toEqual({ name: '', requested_version: 1.0, actual_version: null });
      expect(r.text).toContain('"requested_version":1.0');
    },
  );

  it('names are case-sensitive: Test.Echo is an unknown endpoint', async () => {
    const r = await raw('/Test.Echo', { headers: auth() });
    expect(r.status).toBe(404);
    expect(r.json.meta).toMatchObject({
      result_code: 404,
      result_subcode: 0,
      result_msg: 'Unable to find endpoint for name Test.Echo and version 2.31',
    });
    expect(r.json.meta.endpoint).toEqual({ name: 'Test.Echo', requested_version: '2.31', actual_version: null });
  });

  it('unknown services answer 404 even without credentials', async () => {
    for (const name of ['tasks.get_all', 'projects.create', 'auth.logout', 'users.get_vaults']) {
      const r = await raw(`/v2.23/${name}`);
      expect(r.status).toBe(404);
      expect(r.json.meta.result_msg).toBe(`Unable to find endpoint for name ${name} and version 2.23`);
    }
  });
});

describe('versions (§2.3)', () => {
  it('reports the implementation minimum as actual_version, as a string from 2.1 on', async () => {
    const r = await raw('/v2.23/test.newer', { headers: auth() });
    expect(r.json.meta.endpoint).toEqual({ name: 'test.newer', requested_version: '2.23', actual_version: '2.12' });
  });

  it('answers 404 below an endpoint minimum', async () => {
    const r = await raw('/v2.11/test.newer', { headers: auth() });
    expect(r.status).toBe(404);
    expect(r.json.meta.result_msg).toBe('Unable to find endpoint for name test.newer and version 2.11');
  });

  it('serves "served from 1.0" endpoints below their minimum with actual_version 1.0', async () => {
    const old = await raw('/v1.5/test.served', { headers: auth() });
    expect(old.status).toBe(200);
    expect(old.text).toContain('"requested_version":1.5,"actual_version":1.0');
    const current = await raw('/v2.20/test.served', { headers: auth() });
    expect(current.json.meta.endpoint).toEqual({
      name: 'test.served',
      requested_version: '2.20',
      actual_version: '2.9',
    });
  });

  it('without a version in the path the maximum 2.31 is requested', async () => {
    const r = await raw('/test.echo', { headers: auth() });
    expect(r.json.meta.endpoint).toEqual({ name: 'test.echo', requested_version: '2.31', actual_version: '1.0' });
  });
});

describe('methods (§2.2)', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('%s carries a JSON body', async (method) => {
    const r = await raw('/test.echo', {
      method,
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"x": 1}',
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ received: { x: 1 } });
  });

  it('OPTIONS answers 200 with an empty body, no authentication, and credentialed CORS for a configured origin', async () => {
    const r = await raw('/v2.23/test.echo', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('echoes a configured Origin on ordinary calls too', async () => {
    const r = await raw('/test.echo', { headers: { ...auth(), origin: 'https://ui.example.com' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('https://ui.example.com');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
  });
});

describe('processing order (§4)', () => {
  it('bad credentials and a malformed body answer 401', async () => {
    const r = await raw('/test.echo', {
      method: 'POST',
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: '{bad',
    });
    expect(r.status).toBe(401);
  });

  it('a malformed body with valid credentials answers 400/0', async () => {
    const r = await raw('/test.echo', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{bad',
    });
    expect(r.status).toBe(400);
    expect(r.json.meta).toMatchObject({
      result_subcode: 0,
      result_msg: 'The browser (or proxy) sent a request that this server could not understand.',
    });
  });

  it('impersonation headers answer 400/6 naming the role', async () => {
    for (const header of [
      'X-ClearML-Impersonate-As',
      'X-ClearML-Act-As',
      'X-Trains-Impersonate-As',
      'X-Trains-Act-As',
    ]) {
      const r = await raw('/test.echo', { headers: { ...auth(), [header]: 'someone' } });
      expect(r.status).toBe(400);
      expect(r.json.meta).toMatchObject({
        result_code: 400,
        result_subcode: 6,
        result_msg: 'Impersonation error (impersonation not allowed): role=user',
      });
    }
  });

  it('X-ClearML-Async is ignored: the call runs and answers 200', async () => {
    const r = await raw('/test.echo', { headers: { ...auth(), 'X-ClearML-Async': '1' } });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ received: {} });
  });
});
