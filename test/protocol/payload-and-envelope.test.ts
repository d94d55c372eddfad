// protocol.md §3 (call data, body errors, field rules) and §5 (envelope), over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTarget } from '../../query/query-target.js';
import { combineModules, echoTarget } from '../harness/echo-operations.js';
import { asHeaders, httpRequest } from '../harness/http-request.js';
import { startHarness, type Harness } from '../harness/service-harness.js';

const LIMIT = 4096;
let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({
    target: 'query',
    env: { MAX_BODY_BYTES: String(LIMIT) },
    modules: { query: combineModules(queryTarget, echoTarget) },
  });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

async function echo(path: string, body?: string | Buffer, headers: Record<string, string> = {}, method = 'POST') {
  const response = await httpRequest(`${h.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
  const { text } = response;
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: asHeaders(response.headers) };
}

describe('call data (§3.1)', () => {
  it.each(['', 'null', 'false', '0', '""', '[]', '  \n'])('body %j counts as {}', async (body) => {
    const r = await echo('/test.echo', body, { 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ received: {} });
  });

  it('parses the body as JSON whatever the declared content type', async () => {
    const r = await echo('/test.echo', '{"a": [1, 2]}', { 'content-type': 'text/plain' });
    expect(r.json.data).toEqual({ received: { a: [1, 2] } });
  });

  it('merges query parameters over the body with nesting, lists and conversions', async () => {
    const query = 'a.b=1&c=1.5&d=-5&e=1e3&f=True&g=FALSE&h=x&h=y&i[]=z&j=.5&k=10&over=query&s=true';
    const r = await echo(`/test.echo?${query}`, '{"over": "body", "keep": 1, "a": {"z": 2}}', {
      'content-type': 'application/json',
    });
    expect(r.json.data.received).toEqual({
      a: { b: 1, z: 2 },
      c: 1.5,
      d: '-5',
      e: '1e3',
      f: true,
      g: false,
      h: ['x', 'y'],
      i: ['z'],
      j: 0.5,
      k: 10,
      over: 'query',
      keep: 1,
      s: true,
    });
  });

  it('merges form fields after the query string', async () => {
    const r = await echo('/test.echo?a=1&b=2', 'b=3&c=text', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.json.data.received).toEqual({ a: 1, b: 3, c: 'text' });
  });

  it('reads a GET body (the SDK sends GET with a JSON body)', async () => {
    const r = await echo('/test.echo', '{"batch_size": 7}', { 'content-type': 'application/json' }, 'GET');
    expect(r.json.data).toEqual({ received: { batch_size: 7 } });
  });
});

describe('body errors (§3.2)', () => {
  it('malformed JSON: 400/0', async () => {
    const r = await echo('/test.echo', '{"a": ', { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.json.meta).toMatchObject({
      result_code: 400,
      result_subcode: 0,
      result_msg: 'The browser (or proxy) sent a request that this server could not understand.',
    });
  });

  it('JSON-lines line that is not JSON: 400/0', async () => {
    const r = await echo('/test.echo', '{"a": 1}\n{nope', { 'content-type': 'application/json-lines' });
    expect(r.status).toBe(400);
    expect(r.json.meta.result_msg).toBe('The browser (or proxy) sent a request that this server could not understand.');
  });

  it.each([
    ['[1]', 'list'],
    ['"s"', 'str'],
    ['3', 'int'],
    ['2.5', 'float'],
    ['1.0', 'float'],
    ['true', 'bool'],
    ['null', 'NoneType'],
  ])('JSON-lines line %s that is not an object: 400/0 naming %s', async (line, kind) => {
    const r = await echo('/test.echo', `{"a": 1}\n${line}`, { 'content-type': 'application/json-lines' });
    expect(r.status).toBe(400);
    expect(r.json.meta).toMatchObject({
      result_subcode: 0,
      result_msg: `json lines must contain objects, found: ${kind}`,
    });
  });

  it.each(['[1, 2]', '"text"', '5', 'true', '-1'])('body %s that is not an object: 400/12', async (body) => {
    const r = await echo('/test.echo', body, { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.json.meta).toMatchObject({
      result_code: 400,
      result_subcode: 12,
      result_msg: 'Validation error (request body must be a JSON object)',
    });
  });

  it('a compressed body: 415 with a plain-text answer', async () => {
    const r = await echo('/test.echo', Buffer.from([0x1f, 0x8b, 0, 0]), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(r.status).toBe(415);
    expect(r.text).toBe('Content encoding is not supported (gzip)');
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('a body over the limit: 413/0 naming the limit', async () => {
    const r = await echo('/test.echo', JSON.stringify({ big: 'x'.repeat(LIMIT) }), {
      'content-type': 'application/json',
    });
    expect(r.status).toBe(413);
    expect(r.json.meta).toMatchObject({
      result_code: 413,
      result_subcode: 0,
      result_msg: `Request body too large (limit ${LIMIT} bytes)`,
    });
  });

  it('a chunked body crossing the limit without Content-Length: 413/0', async () => {
    const big = 'x'.repeat(LIMIT * 2);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"big": "${big}"}`));
        controller.close();
      },
    });
    const response = await fetch(`${h.baseUrl}/test.echo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { meta: { result_subcode: number } }).meta.result_subcode).toBe(0);
  });
});

describe('request fields (§3.3, §3.4) through auth.login', () => {
  it.each([
    ['{"expiration_sec": "12"}', 200, undefined],
    ['{"expiration_sec": 3.9}', 200, undefined],
    ['{"expiration_sec": "1.5"}', 400, "Validation error (invalid literal for int() with base 10: '1.5')"],
    ['{"expiration_sec": "abc"}', 400, "Validation error (invalid literal for int() with base 10: 'abc')"],
    ['{"expiration_sec": [1]}', 400, 'Validation error (value is wrong, expected type "int" [1])'],
    ['{"expiration_sec": 31536001}', 400, "Validation error ('31536001' is bigger than maximum ('31536000').)"],
    ['{"expiration_sec": -1}', 400, "Validation error ('-1' is lower than minimum ('0').)"],
  ])('auth.login %s → %i', async (body, status, message) => {
    const r = await echo('/auth.login', body, {
      'content-type': 'application/json',
      authorization: h.basic(h.credentials.a),
    });
    expect(r.status).toBe(status);
    if (message) expect(r.json.meta).toMatchObject({ result_code: 400, result_subcode: 12, result_msg: message });
  });
});

describe('envelope (§5)', () => {
  it('has exactly the meta fields, equal status and result_code, and JSON content type', async () => {
    const r = await echo('/v2.23/test.echo', '{}', { 'content-type': 'application/json' });
    expect(Object.keys(r.json).sort()).toEqual(['data', 'meta']);
    expect(Object.keys(r.json.meta).sort()).toEqual(
      ['endpoint', 'error_data', 'error_stack', 'id', 'result_code', 'result_msg', 'result_subcode', 'trx'].sort(),
    );
    expect(r.json.meta).toMatchObject({
      result_code: 200,
      result_subcode: 0,
      result_msg: 'OK',
      error_stack: '',
      error_data: {},
    });
    expect(r.json.meta.id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.json.meta.trx).toBe(r.json.meta.id);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('server')).toBe('clearml');
  });

  it('errors carry error_stack null, error_data {} and data {}', async () => {
    const r = await echo('/test.echo', '[1]', { 'content-type': 'application/json' });
    expect(r.json.meta.error_stack).toBeNull();
    expect(r.json.meta.error_data).toEqual({});
    expect(r.json.data).toEqual({});
    expect(r.status).toBe(r.json.meta.result_code);
  });

  it('trx echoes X-ClearML-Trx, or X-Trains-Trx', async () => {
    expect((await echo('/test.echo', '', { 'X-ClearML-Trx': 'trx-1' })).json.meta.trx).toBe('trx-1');
    expect((await echo('/test.echo', '', { 'X-Trains-Trx': 'trx-2' })).json.meta.trx).toBe('trx-2');
  });

  it('versions below 2.1 are JSON numbers keeping their .0', async () => {
    const r = await echo('/v1.0/test.echo', '');
    expect(r.text).toContain('"requested_version":1.0,"actual_version":1.0');
    const r2 = await echo('/v2.0/test.echo', '');
    expect(r2.text).toContain('"requested_version":2.0,"actual_version":1.0');
  });
});

describe('streamed answers (docs/protocol.md, "Answers as bytes")', () => {
  const call = (body: object) =>
    httpRequest(`${h.baseUrl}/test.stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('sends the envelope around the chunks, chunked', async () => {
    const response = await call({ parts: 3 });
    expect(response.status).toBe(200);
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const json = JSON.parse(response.text);
    expect(json.meta).toMatchObject({ result_code: 200, result_msg: 'OK', endpoint: { name: 'test.stream' } });
    expect(json.data.count).toBe(3);
    expect(json.data.items.map((item: string) => item.length)).toEqual([1, 1, 1].map(() => 1 + 64 * 1024));
  });

  it('closes the connection when the answer fails after its first chunk: a failed call, never a truncated success', async () => {
    await expect(call({ parts: 5, fail_after: 2 })).rejects.toThrow();
    // The service goes on answering.
    expect(JSON.parse((await call({ parts: 1 })).text).data.count).toBe(1);
  });
});
