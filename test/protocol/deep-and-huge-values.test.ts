// Issue 10: deep and huge JSON. A body nested 10,000 deep answered 500 on
// every operation (stack overflow in the code walking it); a huge value was
// echoed back whole in the error message. Every operation of the registry is
// tried: buffered ones must answer the nesting limit's 400/12, and no
// operation may answer 5xx or a message longer than the bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../../shared/errors/error-catalogue.js';
import { MAX_CALL_DATA_DEPTH, maxJsonContainers } from '../../shared/protocol/client-object.js';
import type { Operation } from '../../shared/protocol/operation.js';
import { httpRequest } from '../harness/http-request.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

let h: Harness;
let token: string;
let operations: Operation[];

beforeAll(async () => {
  h = await startHarness({ target: 'all' });
  token = await h.login(h.credentials.a);
  operations = h.service.registry.list();
});
afterAll(() => h?.stop());

async function send(name: string, body: string, contentType = 'application/json') {
  const response = await httpRequest(`${h.baseUrl}/v2.23/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  let json: any;
  try {
    json = JSON.parse(response.text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text: response.text };
}

const nestedObject = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
const nestedList = (levels: number, leaf = '1') => `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;

/** The request fields an operation declares (its zod object shape), plus names most operations read. */
function fieldsOf(operation: Operation): string[] {
  const shape =
    operation.kind === 'json' ? (operation.request as { shape?: Record<string, unknown> }).shape : undefined;
  return [...new Set([...Object.keys(shape ?? {}), 'task', 'tasks', 'id', 'metrics', 'filters'])];
}

function expectBounded(name: string, field: string, r: { status: number; json: any; text: string }): void {
  const where = `${name} ${field}: ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeLessThan(500);
  if (r.json?.meta) expect(r.json.meta.result_msg.length, where).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 3);
}

describe('deep JSON', () => {
  it('a body nested 10,000 deep: 400/12 on every buffered operation, never a 5xx on any', async () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const body of [nestedObject(10_000), `{"task": ${nestedList(10_000)}}`]) {
      for (const operation of operations) {
        const r = await send(operation.name, body);
        expect(r.status, `${operation.name}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
        if (operation.kind === 'json') {
          expect(r.json.meta, operation.name).toMatchObject({
            result_code: 400,
            result_subcode: 12,
            result_msg: `Validation error (request data is nested deeper than ${MAX_CALL_DATA_DEPTH} levels)`,
          });
        }
      }
    }
  });

  it('a body of millions of brackets is refused without parsing it', async () => {
    const levels = 8 * 1024 * 1024;
    const started = Date.now();
    const r = await send('reports.get_all_ex', nestedList(levels));
    expect(r.json.meta).toMatchObject({ result_code: 400, result_subcode: 12 });
    // JSON.parse alone takes seconds and gigabytes on such a body; the byte scan takes milliseconds.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('dotted query-string names deeper than the limit: 400/12', async () => {
    const path = Array.from({ length: MAX_CALL_DATA_DEPTH + 1 }, () => 'a').join('.');
    const r = await send(`reports.get_all_ex?${path}=1`, '');
    expect(r.json.meta).toMatchObject({ result_code: 400, result_subcode: 12 });
    const within = Array.from({ length: MAX_CALL_DATA_DEPTH - 1 }, () => 'a').join('.');
    expect((await send(`reports.get_all_ex?${within}=1`, '')).status).toBe(200);
  });

  it('values nested up to the limit in every request field of every operation: never a 5xx', async () => {
    for (const operation of operations) {
      for (const field of fieldsOf(operation)) {
        for (const value of [nestedList(MAX_CALL_DATA_DEPTH - 1), nestedObject(MAX_CALL_DATA_DEPTH - 2)]) {
          expectBounded(operation.name, field, await send(operation.name, `{"${field}": ${value}}`));
        }
      }
    }
  });
});

describe('many small objects', () => {
  it('a body holding more objects and lists than its length allows: 400/12 on every buffered operation, before JSON.parse', async () => {
    // 350,000 empty objects in 1 MiB; JSON.parse spent 43 s and 1.4 GB on 64 MiB of them.
    const body = `{"task": "t", "tasks": ["t"], "a": [${Array(350_000).fill('{}').join(',')}]}`;
    const message = `Validation error (request data holds more than ${maxJsonContainers(body.length)} objects and lists in ${body.length} characters: at most 10000 and one per 16 characters)`;
    for (const operation of operations) {
      const r = await send(operation.name, body);
      expect(r.status, `${operation.name}: ${r.text.slice(0, 300)}`).toBe(400);
      if (operation.kind === 'json')
        expect(r.json.meta, operation.name).toMatchObject({
          result_code: 400,
          result_subcode: 12,
          result_msg: message,
        });
    }
  });
});

describe('huge values', () => {
  it('a 60 MB string is not echoed back', async () => {
    const huge = 'x'.repeat(60 * 1024 * 1024);
    const r = await send('auth.login', JSON.stringify({ expiration_sec: huge }));
    expect(r.json.meta).toMatchObject({ result_code: 400, result_subcode: 12 });
    expect(r.json.meta.result_msg).toMatch(
      /^Validation error \(invalid literal for int\(\) with base 10: 'x+\.\.\.'\)$/,
    );
    expect(r.text.length).toBeLessThan(MAX_MESSAGE_CHARS + 1024);
  });

  it('every field of every operation given a long string, a long list or a huge integer: bounded messages, never a 5xx', async () => {
    const long = JSON.stringify(`${unique('v')}${'y'.repeat(100_000)}`);
    const list = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => `item-${i}`));
    for (const operation of operations) {
      for (const field of fieldsOf(operation)) {
        for (const value of [long, list, '1e308', '-1e308', '123456789012345678901234567890']) {
          expectBounded(operation.name, field, await send(operation.name, `{"${field}": ${value}}`));
        }
      }
    }
  });
});
