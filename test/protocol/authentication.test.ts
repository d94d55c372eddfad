// protocol.md §7: auth.login, Basic, Bearer, cookie, every failure kind, company identity.
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTarget } from '../../query/query-target.js';
import { combineModules, echoTarget } from '../harness/echo-operations.js';
import { startHarness, type Harness } from '../harness/service-harness.js';

const SECRET = 'test-signing-secret-that-is-long-enough-0123456789';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    target: 'query',
    env: { AUTH_SECRET: SECRET },
    modules: { query: combineModules(queryTarget, echoTarget) },
  });
});
afterAll(() => h?.stop());

async function call(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${h.baseUrl}${path}`, { headers });
  return { status: response.status, json: (await response.json()) as any, headers: response.headers };
}

const decode = (token: string) => jwt.decode(token) as Record<string, any>;
const basicOf = (user: string, secret: string) =>
  `Basic ${Buffer.from(`${user}:${secret}`, 'latin1').toString('base64')}`;

describe('auth.login (§7.3, §7.4)', () => {
  it('issues a token with the contract claims and sets the cookie', async () => {
    const { a } = h.credentials;
    const r = await call('/auth.login', { authorization: h.basic(a) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.data)).toEqual(['token']);
    const claims = decode(r.json.data.token);
    expect(claims).toMatchObject({
      auth_type: 'Bearer',
      identity: { user: a.user, company: a.company, role: 'user' },
      env: '<unknown>',
      api_version: '2.31',
      server_version: '2.0.0',
      feature_set: 'basic',
    });
    expect(typeof claims.server_build).toBe('string');
    expect(claims.session_id).toMatch(/^[0-9a-f]{32}$/);
    expect(claims.exp - claims.iat).toBe(2_592_000);
    expect(jwt.decode(r.json.data.token, { complete: true })?.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(r.headers.get('set-cookie')).toBe(
      `clearml_token_basic=${r.json.data.token}; Max-Age=99999999999; Path=/; HttpOnly; SameSite=Lax`,
    );
  });

  it('honours expiration_sec from the query string, 0 meaning the default', async () => {
    const short = decode(
      (await call('/auth.login?expiration_sec=600', { authorization: h.basic(h.credentials.a) })).json.data.token,
    );
    expect(short.exp - short.iat).toBe(600);
    const zero = decode(
      (await call('/auth.login?expiration_sec=0', { authorization: h.basic(h.credentials.a) })).json.data.token,
    );
    expect(zero.exp - zero.iat).toBe(2_592_000);
  });

  it('refreshes with a Bearer token, keeping the identity', async () => {
    const first = await h.login(h.credentials.b);
    const r = await call('/v2.23/auth.login', { authorization: `Bearer ${first}` });
    expect(r.status).toBe(200);
    expect(decode(r.json.data.token).identity).toEqual(decode(first).identity);
    expect(r.json.data.token).not.toBe(first);
  });

  it('serves several companies from one credentials file, each with its own identity', async () => {
    const ta = await h.login(h.credentials.a);
    const tb = await h.login(h.credentials.b);
    const ra = await call('/test.identity', { authorization: `Bearer ${ta}` });
    const rb = await call('/test.identity', { authorization: `Bearer ${tb}` });
    expect(ra.json.data).toEqual({ company: h.credentials.a.company, user: h.credentials.a.user });
    expect(rb.json.data).toEqual({ company: h.credentials.b.company, user: h.credentials.b.user });
  });
});

describe('presenting credentials (§7.2)', () => {
  it('accepts Basic on every endpoint', async () => {
    const r = await call('/test.identity', { authorization: h.basic(h.credentials.a) });
    expect(r.status).toBe(200);
    expect(r.json.data.company).toBe(h.credentials.a.company);
  });

  it('accepts the clearml_token_basic cookie when there is no Authorization header (with the web UI client header)', async () => {
    const token = await h.login(h.credentials.a);
    const r = await call('/test.identity', {
      cookie: `other=1; clearml_token_basic=${token}`,
      'x-allegro-client': 'Webapp-2.0.0',
    });
    expect(r.status).toBe(200);
    expect(r.json.data.company).toBe(h.credentials.a.company);
  });

  it.each([
    ['no credentials', {}, 20, 'Unauthorized (missing credentials)'],
    ['lower-case bearer', { authorization: 'bearer abc' }, 10, 'Unauthorized (bad authentication header type)'],
    ['unknown scheme', { authorization: 'Digest abc' }, 10, 'Unauthorized (bad authentication header type)'],
    [
      'bad base64 padding',
      { authorization: 'Basic abc' },
      21,
      'Unauthorized (malformed credentials) (Incorrect padding)',
    ],
    [
      'unknown access key',
      { authorization: 'Basic ' + Buffer.from('nobody:x').toString('base64') },
      22,
      'Unauthorized (invalid credentials) (failed to locate provided credentials)',
    ],
    [
      'Basic without a colon',
      { authorization: 'Basic ' + Buffer.from('nobody').toString('base64') },
      22,
      'Unauthorized (invalid credentials) (failed to locate provided credentials)',
    ],
    [
      'malformed token',
      { authorization: 'Bearer abc' },
      30,
      'Invalid token (invalid jwt token): reason=Not enough segments',
    ],
  ])('%s → 401', async (_what, headers, subcode, message) => {
    const r = await call('/test.echo', headers as Record<string, string>);
    expect(r.status).toBe(401);
    expect(r.json.meta).toMatchObject({ result_code: 401, result_subcode: subcode, result_msg: message });
  });

  it('rejects a wrong secret for a known key', async () => {
    const r = await call('/test.echo', { authorization: basicOf(h.credentials.a.access_key, 'wrong') });
    expect(r.json.meta).toMatchObject({ result_code: 401, result_subcode: 22 });
  });

  it('splits Basic credentials at the first colon (secrets may contain one)', async () => {
    const r = await call('/test.echo', {
      authorization: basicOf(h.credentials.a.access_key, `${h.credentials.a.secret_key}:extra`),
    });
    expect(r.json.meta.result_subcode).toBe(22);
  });
});

describe('token validation (§7.5)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const claims = () => ({
    identity: { user: h.credentials.a.user, company: h.credentials.a.company, role: 'user' },
    iat: now(),
    exp: now() + 600,
  });

  it('accepts a token signed with the server secret', async () => {
    const r = await call('/test.identity', {
      authorization: `Bearer ${jwt.sign(claims(), SECRET, { algorithm: 'HS256', noTimestamp: true })}`,
    });
    expect(r.status).toBe(200);
  });

  it('rejects a tampered token (signature)', async () => {
    const token = await h.login(h.credentials.a);
    const [head, payload, signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...decode(token), identity: { user: 'x', company: h.credentials.b.company, role: 'user' } }),
    ).toString('base64url');
    for (const bad of [
      `${head}.${forged}.${signature}`,
      jwt.sign(claims(), 'another-secret-of-sufficient-length-000000', { algorithm: 'HS256' }),
    ]) {
      const r = await call('/test.echo', { authorization: `Bearer ${bad}` });
      expect(r.json.meta).toMatchObject({
        result_code: 401,
        result_subcode: 30,
        result_msg: 'Invalid token (invalid jwt token): reason=Signature verification failed',
      });
    }
    expect(payload).toBeTruthy();
  });

  it('rejects alg none', async () => {
    const unsigned = jwt.sign(claims(), '', { algorithm: 'none' });
    const r = await call('/test.echo', { authorization: `Bearer ${unsigned}` });
    expect(r.json.meta).toMatchObject({ result_code: 401, result_subcode: 30 });
    expect(r.json.meta.result_msg).toMatch(/^Invalid token \(invalid jwt token\): reason=/);
  });

  it('rejects an expired token', async () => {
    const expired = jwt.sign({ ...claims(), iat: now() - 100, exp: now() - 1 }, SECRET, {
      algorithm: 'HS256',
      noTimestamp: true,
    });
    const r = await call('/test.echo', { authorization: `Bearer ${expired}` });
    expect(r.json.meta).toMatchObject({
      result_code: 401,
      result_subcode: 30,
      result_msg: 'Invalid token (invalid jwt token): reason=Signature has expired',
    });
  });

  it('rejects a valid signature without a usable identity', async () => {
    const token = jwt.sign({ iat: now(), exp: now() + 600 }, SECRET, { algorithm: 'HS256', noTimestamp: true });
    const r = await call('/test.echo', { authorization: `Bearer ${token}` });
    expect(r.json.meta).toMatchObject({ result_code: 401, result_subcode: 30 });
    expect(r.json.meta.result_msg).toMatch(/^Invalid token \(failed parsing token\): reason=/);
  });
});
