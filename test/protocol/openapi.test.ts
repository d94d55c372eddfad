// Issue 15 item 2: GET /openapi.json of a running service is an OpenAPI 3.1
// document (checked by a standard validator) of every operation the process
// serves, with errors from the one catalogue, and its request schemas agree
// with the validation the server runs: requests built from the document are
// accepted, and requests that break it are refused.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../shared/errors/error-catalogue.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

type Schema = Record<string, any>;
type Document = { openapi: string; paths: Record<string, Record<string, any>>; components: Record<string, any> };

async function fetchDocument(h: Harness): Promise<{ status: number; type: string | null; doc: Document }> {
  // No credentials: the description is public.
  const response = await fetch(`${h.baseUrl}/openapi.json`);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    doc: (await response.json()) as Document,
  };
}

const requestSchemaOf = (doc: Document, name: string): Schema | undefined =>
  doc.paths[`/${name}`]?.post?.requestBody?.content?.['application/json']?.schema;

/**
 * The smallest request the schema describes: required members only, each
 * from its schema (`given` names the values a field must have to address
 * real records: a task id, a metric).
 */
function exampleOf(schema: Schema, given: Record<string, unknown>, name = ''): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (name in given && (type === 'array' ? Array.isArray(given[name]) : typeof given[name] === type))
    return given[name];
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf && type === undefined) return exampleOf(schema.anyOf[0], given, name);
  switch (type) {
    case 'object': {
      // An object-level anyOf names alternative required members (tasks or task): the first is sent.
      const required = [...(schema.required ?? []), ...(schema.anyOf?.[0]?.required ?? [])];
      return Object.fromEntries(
        required.map((member: string) => [member, exampleOf(schema.properties[member], given, member)]),
      );
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () =>
        exampleOf(schema.items ?? {}, given, name),
      );
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'string':
      return 'x'.repeat(Math.max(1, schema.minLength ?? 0));
    default:
      return {};
  }
}

describe('the all target', () => {
  let h: Harness;
  let token: string;
  let doc: Document;
  beforeAll(async () => {
    h = await startHarness({ target: 'all' });
    token = await h.login(h.credentials.a);
    const fetched = await fetchDocument(h);
    expect(fetched.status).toBe(200);
    expect(fetched.type).toMatch(/^application\/json/);
    doc = fetched.doc;
  }, 60_000);
  afterAll(async () => h?.stop());

  it('is a valid OpenAPI 3.1 document, and every schema in it compiles as JSON Schema 2020-12', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const content of Object.values<any>(item.post?.requestBody?.content ?? {})) {
        expect(() => ajv.compile(content.schema), path).not.toThrow();
      }
    }
  });

  it('describes every registered operation and the service routes', () => {
    const names = h.service.registry.names();
    expect(names.length).toBeGreaterThan(30);
    expect(names).toEqual(
      expect.arrayContaining([
        'auth.login',
        'events.add',
        'events.add_batch',
        'events.get_task_log',
        'reports.create',
        'reports.get_all_ex',
      ]),
    );
    for (const name of names) expect(doc.paths[`/${name}`]?.post?.operationId, name).toBe(name);
    for (const route of ['/health', '/ready', '/metrics', '/openapi.json'])
      expect(doc.paths[route]?.get?.security, route).toEqual([]);
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.includes('.') && p !== '/openapi.json')
        .sort(),
    ).toEqual(names.map((n) => `/${n}`).sort());
  });

  it('describes errors from the catalogue: every entry, with its codes, under its HTTP status', () => {
    const listed = Object.entries(doc.components.responses as Record<string, any>).flatMap(([response, body]) =>
      (body.content['application/json']?.schema.allOf?.[1].properties.meta.allOf[1].anyOf ?? []).map((entry: any) => ({
        response,
        id: entry.title,
        code: entry.properties.result_code.const,
        subcode: entry.properties.result_subcode.const,
      })),
    );
    expect(listed.map((e) => e.id).sort()).toEqual(Object.keys(errorCatalogue).sort());
    for (const e of listed) {
      const entry = errorCatalogue[e.id as keyof typeof errorCatalogue];
      expect([e.response, e.code, e.subcode]).toEqual([`Error${entry.http}`, entry.code, entry.subcode]);
    }
    expect(doc.paths['/events.get_task_log']?.post.responses['401']).toEqual({
      $ref: '#/components/responses/Error401',
    });
  });

  it('states the security: Basic first for auth.login, bearer for the rest, none for the service routes', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basicAuth', 'bearerAuth', 'cookieAuth']);
    expect(doc.paths['/auth.login']?.post.security[0]).toEqual({ basicAuth: [] });
    expect(doc.paths['/events.get_task_log']?.post.security[0]).toEqual({ bearerAuth: [] });
  });

  it('requests built from the document are accepted, and match the document', async () => {
    const task = unique('task-');
    const added = await h.call(
      'events.add',
      { type: 'training_stats_scalar', task, iter: 1, metric: 'loss', variant: 'total', value: 0.5 },
      { token },
    );
    expect(added.body.meta.result_code).toBe(200);
    const given = { task, tasks: [task], metric: 'loss', variant: 'total', name: unique('report ') };
    const ajv = new Ajv2020({ strict: false });
    for (const name of [
      'events.scalar_metrics_iter_histogram',
      'events.get_task_log',
      'events.get_task_metrics',
      'events.multi_task_scalar_metrics_iter_histogram',
      'reports.create',
      'auth.login',
    ]) {
      const schema = requestSchemaOf(doc, name)!;
      const example = exampleOf(schema, given);
      expect(ajv.validate(schema, example), `${name} ${JSON.stringify(ajv.errors)}`).toBe(true);
      const answer = await h.call(name, example, { token });
      expect([name, answer.status, answer.body.meta.result_msg]).toEqual([name, 200, 'OK']);
    }
  });

  it('no operation refuses as invalid (400/11, 400/12) a request built from its schema', async () => {
    const task = unique('task-');
    await h.call('events.add', { type: 'log', task, timestamp: Date.now(), msg: 'hello' }, { token });
    const given = { task, tasks: [task], model: task, metric: 'm', variant: 'v', name: unique('report ') };
    const refused: string[] = [];
    // Deletions last, so the task exists for every other call.
    const names = h.service.registry
      .names()
      .sort((a, b) => Number(a.includes('delete')) - Number(b.includes('delete')));
    for (const name of names) {
      const schema = requestSchemaOf(doc, name);
      if (schema === undefined) continue;
      const answer = await h.call(name, exampleOf(schema, given), { token });
      const meta = answer.body?.meta;
      if (meta !== undefined && meta.result_code === 400 && [11, 12].includes(meta.result_subcode))
        refused.push(`${name}: ${meta.result_msg}`);
    }
    expect(refused).toEqual([]);
  });

  it('a request the document rules out is refused: a required member left out, an integer below its minimum', async () => {
    const checked: string[] = [];
    for (const name of h.service.registry.names()) {
      const schema = requestSchemaOf(doc, name);
      if (schema === undefined) continue;
      const full = exampleOf(schema, {}) as Record<string, unknown>;
      for (const member of schema.required ?? []) {
        const { [member]: _left, ...rest } = full;
        const answer = await h.call(name, rest, { token });
        expect([name, member, answer.status, answer.body.meta.result_subcode]).toEqual([name, member, 400, 12]);
        checked.push(`${name} without ${member}`);
      }
      for (const [member, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if (property.type !== 'integer' || property.minimum === undefined) continue;
        const answer = await h.call(name, { ...full, [member]: property.minimum - 1 }, { token });
        expect([name, member, answer.status, answer.body.meta.result_subcode]).toEqual([name, member, 400, 12]);
        checked.push(`${name} ${member} below ${property.minimum}`);
      }
    }
    expect(checked.length).toBeGreaterThan(20);
  });
});

describe('a target serves the description of its own operations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ target: 'ingest' });
  }, 60_000);
  afterAll(async () => h?.stop());

  it('ingest: events.add and events.add_batch (its NDJSON body by media type), nothing of query', async () => {
    const { status, doc } = await fetchDocument(h);
    expect(status).toBe(200);
    expect(Object.keys(doc.paths).filter((p) => p !== '/openapi.json' && p.includes('.'))).toEqual([
      '/events.add',
      '/events.add_batch',
    ]);
    expect(Object.keys(doc.paths['/events.add_batch']?.post.requestBody.content).sort()).toEqual([
      'application/json',
      'application/json-lines',
      'application/ndjson',
      'application/x-ndjson',
    ]);
    expect((await new Validator().validate(doc)).valid).toBe(true);
  });
});
