// Issue 10 item 5: another site's page must not read answers or change data
// for a browser logged in with the clearml_token_basic cookie
// (docs/protocol.md, "Cross-site requests").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asHeaders, httpRequest } from '../harness/http-request.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

const UI = 'https://clearml.example.com';
const EVIL = 'https://evil.example.net';

let h: Harness;
let open: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ target: 'all', env: { CORS_ALLOWED_ORIGINS: UI } });
  open = await startHarness({ target: 'query', env: { CORS_ALLOWED_ORIGINS: '*' } });
  token = await h.login(h.credentials.a);
});
afterAll(async () => {
  await h?.stop();
  await open?.stop();
});

async function send(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const response = await httpRequest(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: init.headers,
    body: init.body,
  });
  let json: any;
  try {
    json = JSON.parse(response.text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text: response.text, json, headers: asHeaders(response.headers) };
}

const cookie = () => ({ cookie: `clearml_token_basic=${token}` });
const webUi = () => ({ ...cookie(), 'x-allegro-client': 'Webapp-2.0.0-1', 'content-type': 'application/json' });

async function createReport(): Promise<string> {
  const r = await send(h.baseUrl, '/reports.create', {
    method: 'POST',
    headers: webUi(),
    body: JSON.stringify({ name: unique('cross-site ') }),
  });
  expect(r.status).toBe(200);
  return r.json.data.id as string;
}

async function reportExists(id: string): Promise<boolean> {
  const r = await send(h.baseUrl, '/reports.get_all_ex', {
    method: 'POST',
    headers: webUi(),
    body: JSON.stringify({ id: [id], only_fields: ['id'] }),
  });
  return r.json.data.tasks.length === 1;
}

describe('CORS', () => {
  it('echoes only a configured origin, with credentials', async () => {
    const allowed = await send(h.baseUrl, '/reports.get_tags', { headers: { ...webUi(), origin: UI } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('vary')).toMatch(/Origin/);
    const foreign = await send(h.baseUrl, '/reports.get_tags', { headers: { ...webUi(), origin: EVIL } });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers every pre-flight with 200 and an empty body, allowing only a configured origin', async () => {
    const preflight = (origin: string) =>
      send(h.baseUrl, '/v2.23/reports.delete', {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-allegro-client',
        },
      });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(200);
    expect(allowed.text).toBe('');
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type,x-allegro-client');
    const foreign = await preflight(EVIL);
    expect(foreign.status).toBe(200);
    expect(foreign.text).toBe('');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('access-control-allow-headers')).toBeNull();
  });

  it('CORS_ALLOWED_ORIGINS=* echoes any origin (the contract literally)', async () => {
    const r = await send(open.baseUrl, '/reports.get_tags', {
      method: 'OPTIONS',
      headers: { origin: EVIL, 'access-control-request-method': 'POST' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe(EVIL);
  });
});

describe('cookie-authenticated calls', () => {
  it('a link or form from another site (cookie only, no client header) cannot delete a report', async () => {
    const id = await createReport();
    // What a top-level navigation sends: GET, query string, the Lax cookie, nothing else.
    const link = await send(h.baseUrl, `/reports.delete?task=${id}&force=true`, { headers: cookie() });
    expect(link.status).toBe(403);
    expect(link.json.meta).toMatchObject({
      result_code: 403,
      result_subcode: 0,
      result_msg: 'Forbidden (cookie-authenticated call without a client header)',
    });
    // A cross-site form post: text/plain with a JSON body.
    const form = await send(h.baseUrl, '/reports.delete', {
      method: 'POST',
      headers: { ...cookie(), 'content-type': 'text/plain' },
      body: JSON.stringify({ task: id, force: true }),
    });
    expect(form.status).toBe(403);
    expect(await reportExists(id)).toBe(true);
    // The web UI sends its client header: the same call works.
    const ui = await send(h.baseUrl, '/reports.delete', {
      method: 'POST',
      headers: webUi(),
      body: JSON.stringify({ task: id, force: true }),
    });
    expect(ui.status).toBe(200);
    expect(await reportExists(id)).toBe(false);
  });

  it('every operation that may change state refuses a cookie-only call; reads do not', async () => {
    const writes = [
      'auth.login',
      'events.add',
      'events.add_batch',
      'events.clear_scroll',
      'events.clear_task_log',
      'events.delete_for_model',
      'events.delete_for_task',
      'reports.archive',
      'reports.create',
      'reports.delete',
      'reports.move',
      'reports.publish',
      'reports.unarchive',
      'reports.update',
    ];
    const names = h.service.registry.names();
    expect(names).toEqual(expect.arrayContaining(writes));
    for (const name of names) {
      const r = await send(h.baseUrl, `/v2.23/${name}`, {
        method: 'POST',
        headers: { ...cookie(), 'content-type': 'application/json' },
        body: '{}',
      });
      if (writes.includes(name)) expect(r.json.meta, name).toMatchObject({ result_code: 403, result_subcode: 0 });
      else expect(r.status, `${name}: ${r.text.slice(0, 200)}`).not.toBe(403);
    }
  });

  it('the web UI log download (a plain browser link) still works', async () => {
    const r = await send(h.baseUrl, `/events.download_task_log?line_type=text&task=${unique('t')}`, {
      headers: cookie(),
    });
    expect(r.status).not.toBe(403);
  });

  it('calls with an Authorization header (the SDK) need no client header', async () => {
    const r = await send(h.baseUrl, '/reports.create', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: unique('sdk ') }),
    });
    expect(r.status).toBe(200);
  });

  it('a blank client header does not count', async () => {
    const r = await send(h.baseUrl, '/reports.create', {
      method: 'POST',
      headers: { ...cookie(), 'x-allegro-client': ' ', 'content-type': 'application/json' },
      body: '{"name": "blank header"}',
    });
    expect(r.status).toBe(403);
  });
});
