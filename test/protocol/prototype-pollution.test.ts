// Issue 10: buffered call data (query string, form, JSON body) must never
// reach Object.prototype. The service runs in this test's process, so a
// pollution shows up on `{}` here and on the next caller of another company.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queryTarget } from '../../query/query-target.js';
import { combineModules, echoTarget } from '../harness/echo-operations.js';
import { httpRequest } from '../harness/http-request.js';
import { startHarness, type Harness } from '../harness/service-harness.js';

let h: Harness;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  h = await startHarness({ target: 'query', modules: { query: combineModules(queryTarget, echoTarget) } });
  tokenA = await h.login(h.credentials.a);
  tokenB = await h.login(h.credentials.b);
});
afterAll(() => h?.stop());

const PROTOTYPE_NAMES = ['polluted', 'authorization', 'x-clearml-act-as', 'cookie'];
/** Whatever a failed case wrote is removed, so one failure does not cascade into the others. */
afterEach(() => {
  for (const name of PROTOTYPE_NAMES) delete (Object.prototype as Record<string, unknown>)[name];
});

async function call(path: string, token: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const response = await httpRequest(`${h.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    body: init.body,
  });
  return { status: response.status, json: JSON.parse(response.text) };
}

/** Company A's identity call, as the next caller after an attack by company B. */
async function nextCallerOfA() {
  const r = await call('/test.identity', tokenA);
  expect(r.status).toBe(200);
  expect(r.json.data.company).toBe(h.credentials.a.company);
}

function expectUnpolluted(): void {
  for (const name of PROTOTYPE_NAMES) expect(({} as Record<string, unknown>)[name], name).toBeUndefined();
}

function expectRefused(r: { status: number; json: any }): void {
  expect(r.status).toBe(400);
  expect(r.json.meta).toMatchObject({ result_code: 400, result_subcode: 12 });
  expect(r.json.meta.result_msg).toMatch(/^Validation error \(/);
}

describe('prototype keys in call data', () => {
  it('a polluted authorization header does not log the next caller in as the attacker', async () => {
    const r = await call(`/test.echo?__proto__.authorization=${encodeURIComponent(`Bearer ${tokenB}`)}`, tokenB);
    expectRefused(r);
    expectUnpolluted();
    await nextCallerOfA();
    const anonymous = await httpRequest(`${h.baseUrl}/test.identity`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });

  it('a polluted impersonation header does not fail the next caller', async () => {
    expectRefused(await call('/test.echo?__proto__.x-clearml-act-as=1', tokenB));
    expectUnpolluted();
    await nextCallerOfA();
  });

  it.each([
    ['query string', '/test.echo?__proto__.polluted=1', undefined, undefined],
    ['query list suffix', '/test.echo?__proto__[]=1', undefined, undefined],
    ['query constructor.prototype', '/test.echo?constructor.prototype.polluted=1', undefined, undefined],
    ['query nested under a body object', '/test.echo?a.__proto__.polluted=1', '{"a": {"b": 1}}', undefined],
    ['query prototype segment', '/test.echo?a.prototype=1', undefined, undefined],
    ['form field', '/test.echo', '__proto__.polluted=1', 'application/x-www-form-urlencoded'],
    ['JSON body', '/test.echo', '{"__proto__": {"polluted": 1}}', undefined],
    ['JSON body, deep', '/test.echo', '{"a": [{"b": {"constructor": {"prototype": {"polluted": 1}}}}]}', undefined],
    ['JSON body, prototype key', '/test.echo', '{"filters": {"prototype": 1}}', undefined],
  ])('refused in the %s with 400/12', async (_where, path, body, contentType) => {
    const r = await call(path, tokenB, { body, headers: contentType ? { 'content-type': contentType } : {} });
    expectRefused(r);
    expectUnpolluted();
    await nextCallerOfA();
  });

  it('refused in a real operation (reports.get_all_ex) before it runs', async () => {
    expectRefused(await call('/reports.get_all_ex?__proto__.polluted=1', tokenB));
    expectRefused(
      await call('/reports.get_all_ex', tokenB, { body: '{"filters": {"tags": {"__proto__": {"polluted": 1}}}}' }),
    );
    expectUnpolluted();
  });

  it('keeps ordinary keys that merely contain the words', async () => {
    const r = await call('/test.echo?my__proto__=1&constructors=2&a.prototypes=3', tokenA, {
      body: '{"x_constructor": 4}',
    });
    expect(r.status).toBe(200);
    expect(r.json.data.received).toEqual({ my__proto__: 1, constructors: 2, a: { prototypes: 3 }, x_constructor: 4 });
  });
});
