import { describe, expect, it } from 'vitest';
import { catalogueFor } from './field-catalogue.js';
import { compileProjection } from './projection.js';
import { errorOf } from './test-records.js';
import type { ReferenceResolver, StoredRecord } from './types.js';

const tasks = catalogueFor('task');
const ms = (iso: string) => Date.parse(iso);

/** The §1.1 example report, in stored form. */
const stored: StoredRecord = {
  id: '5e1e0f3f8b8e4d8f9a0b1c2d3e4f5a6b',
  name: 'Weekly results',
  type: 'report',
  status: 'published',
  company: 'd1bd92a3b039400cbafc60a7a5b1e52b',
  user: '4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b',
  project: 'a3c1e2d4f5b6478899aabbccddeeff00',
  comment: 'first draft',
  report: '# Results\n...',
  report_assets: ['https://files.example.com/img1.png'],
  tags: ['q2', 'nlp'],
  system_tags: ['reports', 'hidden', 'archived'],
  created: ms('2024-05-01T10:20:30.123Z'),
  last_update: ms('2024-05-02T08:00:00.500Z'),
  last_change: ms('2024-05-03T09:15:00Z'),
  last_changed_by: '4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b',
  status_changed: ms('2024-05-02T08:00:00.500Z'),
  status_reason: '',
  status_message: '',
  published: ms('2024-05-02T08:00:00.500Z'),
};

const expectedFull = {
  id: '5e1e0f3f8b8e4d8f9a0b1c2d3e4f5a6b',
  name: 'Weekly results',
  type: 'report',
  status: 'published',
  company: { id: 'd1bd92a3b039400cbafc60a7a5b1e52b' },
  user: { id: '4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b' },
  project: { id: 'a3c1e2d4f5b6478899aabbccddeeff00' },
  comment: 'first draft',
  report: '# Results\n...',
  report_assets: ['https://files.example.com/img1.png'],
  tags: ['nlp', 'q2'],
  system_tags: ['archived', 'hidden', 'reports'],
  created: '2024-05-01T10:20:30.123000+00:00',
  last_update: '2024-05-02T08:00:00.500000+00:00',
  last_change: '2024-05-03T09:15:00+00:00',
  last_changed_by: '4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b',
  status_changed: '2024-05-02T08:00:00.500000+00:00',
  status_reason: '',
  status_message: '',
  published: '2024-05-02T08:00:00.500000+00:00',
};

const records: Record<string, Record<string, unknown>> = {
  'project:a3c1e2d4f5b6478899aabbccddeeff00': {
    id: 'a3c1e2d4f5b6478899aabbccddeeff00',
    name: 'Team A/.reports',
    basename: '.reports',
    parent: 'p0',
    path: ['p0'],
    description: 'Reports project',
    created: ms('2024-05-01T00:00:00Z'),
  },
  'user:4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b': { name: 'Alice' },
  'company:d1bd92a3b039400cbafc60a7a5b1e52b': { name: 'ACME' },
};
const resolve: ReferenceResolver = (kind, id) => records[`${kind}:${id}`];
const project = (onlyFields: unknown, record: StoredRecord = stored, kind: 'task' | 'model' = 'task') =>
  compileProjection(onlyFields, catalogueFor(kind)).project(record, resolve);

describe('§1.1/§1.2 representation', () => {
  it('renders the §1.1 example exactly', () => {
    expect(project(undefined)).toEqual(expectedFull);
    expect(project([])).toEqual(expectedFull);
  });

  it('returns {} for an empty reference id and leaves never-set fields absent', () => {
    const out = project(undefined, { id: 'x', company: '', name: 'n', comment: undefined });
    expect(out).toEqual({ id: 'x', company: {}, name: 'n' });
  });

  it('renders nested task references as objects', () => {
    const out = project(['execution', 'models'], {
      id: 't',
      execution: { queue: 'q1', model_labels: { a: 1 } },
      models: { input: [{ name: 'in', model: 'm1' }], output: [] },
    });
    expect(out).toEqual({
      id: 't',
      execution: { queue: { id: 'q1' }, model_labels: { a: 1 } },
      models: { input: [{ name: 'in', model: { id: 'm1' } }], output: [] },
    });
  });

  it('model references include task', () => {
    expect(project(['task', 'parent'], { id: 'm', task: 't1', parent: '' }, 'model')).toEqual({
      id: 'm',
      task: { id: 't1' },
      parent: {},
    });
  });
});

describe('§4.10 only_fields', () => {
  it('["-name"] → every field but name', () => {
    const { name: _name, ...rest } = expectedFull;
    expect(project(['-name'])).toEqual(rest);
  });

  it('["name"] → {id, name}', () => {
    expect(project(['name'])).toEqual({ id: stored.id, name: 'Weekly results' });
  });

  it('nested inclusion returns the partial object', () => {
    const record = { id: 't', execution: { model_labels: { a: 1 }, queue: 'q' } };
    expect(project(['execution.model_labels'], record)).toEqual({ id: 't', execution: { model_labels: { a: 1 } } });
  });

  it('a wins over a.b, and .* is dropped', () => {
    const record = { id: 't', execution: { model_labels: { a: 1 }, queue: 'q' } };
    const full = { id: 't', execution: { model_labels: { a: 1 }, queue: { id: 'q' } } };
    expect(project(['execution.model_labels', 'execution'], record)).toEqual(full);
    expect(project(['execution.*'], record)).toEqual(full);
  });

  it('merges sibling nested paths', () => {
    const record = { id: 't', last_metrics: { m: { v1: { value: 1, min_value: 0 }, v2: { value: 2 } } } };
    expect(project(['last_metrics.m.v1.value', 'last_metrics.m.v2'], record)).toEqual({
      id: 't',
      last_metrics: { m: { v1: { value: 1 }, v2: { value: 2 } } },
    });
  });

  it('paths without a value are absent; declared but unstored fields give nothing', () => {
    expect(project(['comment', 'started', 'script.repository'], { id: 't' })).toEqual({ id: 't' });
  });

  it('exclusions also apply to an inclusion result, but never remove id', () => {
    expect(project(['name', 'comment', '-comment', '-id'])).toEqual({ id: stored.id, name: 'Weekly results' });
    expect(project(['-id', '-name'])).toHaveProperty('id', stored.id);
  });

  it('nested exclusion', () => {
    const record = { id: 't', execution: { model_labels: { a: 1 }, queue: 'q' } };
    expect(project(['-execution.model_labels'], record)).toEqual({ id: 't', execution: { queue: { id: 'q' } } });
  });
});

describe('§1.2 reference sub-fields', () => {
  it('project alone is {id}', () => {
    expect(project(['project'])).toEqual({ id: stored.id, project: { id: 'a3c1e2d4f5b6478899aabbccddeeff00' } });
  });

  it('project.name, user.name, company.name from the resolver', () => {
    expect(project(['project.name', 'user.name', 'company.name'])).toEqual({
      id: stored.id,
      project: { id: 'a3c1e2d4f5b6478899aabbccddeeff00', name: 'Team A/.reports' },
      user: { id: '4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b', name: 'Alice' },
      company: { id: 'd1bd92a3b039400cbafc60a7a5b1e52b', name: 'ACME' },
    });
  });

  it('project.* = every project field except path', () => {
    expect(project(['project.*'])).toEqual({
      id: stored.id,
      project: {
        id: 'a3c1e2d4f5b6478899aabbccddeeff00',
        name: 'Team A/.reports',
        basename: '.reports',
        parent: 'p0',
        description: 'Reports project',
        created: '2024-05-01T00:00:00+00:00',
      },
    });
  });

  it('unknown records and absent sub-fields leave {id}; an empty id stays {}', () => {
    const record = { id: 'r', user: 'ghost', project: 'a3c1e2d4f5b6478899aabbccddeeff00', company: '' };
    expect(project(['user.name', 'project.bogus', 'company.name'], record)).toEqual({
      id: 'r',
      user: { id: 'ghost' },
      project: { id: 'a3c1e2d4f5b6478899aabbccddeeff00' },
      company: {},
    });
  });

  it('parent sub-fields are not resolved', () => {
    expect(project(['parent.name'], { id: 't', parent: 'p' })).toEqual({ id: 't', parent: { id: 'p' } });
  });

  it('the web UI list projection (§3.9)', () => {
    const onlyFields = [
      'name',
      'comment',
      'company',
      'tags',
      'report',
      'project.name',
      'user.name',
      'status',
      'last_update',
      'system_tags',
    ];
    expect(project(onlyFields)).toEqual({
      id: stored.id,
      name: 'Weekly results',
      comment: 'first draft',
      company: { id: 'd1bd92a3b039400cbafc60a7a5b1e52b' },
      tags: ['nlp', 'q2'],
      report: '# Results\n...',
      project: { id: 'a3c1e2d4f5b6478899aabbccddeeff00', name: 'Team A/.reports' },
      user: { id: '4f1e6a0c2b3d4e5f8a9b0c1d2e3f4a5b', name: 'Alice' },
      status: 'published',
      last_update: '2024-05-02T08:00:00.500000+00:00',
      system_tags: ['archived', 'hidden', 'reports'],
    });
  });
});

describe('§4.10 errors', () => {
  it.each([
    [['bogus'], 'task', 'Fields not defined for object: fields=(bogus), object=Task'],
    [['name', '-bogus.x'], 'task', 'Fields not defined for object: fields=(bogus.x), object=Task'],
    [[''], 'task', 'Fields not defined for object: fields=(), object=Task'],
    [['-'], 'task', 'Fields not defined for object: fields=(-), object=Task'],
    [['name..x'], 'task', 'Fields not defined for object: fields=(name..x), object=Task'],
    [['report'], 'model', 'Fields not defined for object: fields=(report), object=Model'],
  ])('%j (%s)', (value, kind, message) => {
    expect(errorOf(() => compileProjection(value, catalogueFor(kind as 'task' | 'model')))).toEqual({
      code: '400/14',
      message,
    });
  });

  it.each([
    ['name', 'Validation error (value is wrong, expected type "list" \'name\')'],
    [['name', 1], 'Validation error (all items must be instances of "str", and not "int".)'],
  ])('400/12 for %j', (value, message) => {
    expect(errorOf(() => compileProjection(value, tasks))).toEqual({ code: '400/12', message });
  });

  it('accepts every declared model field', () => {
    expect(() =>
      compileProjection(['uri', 'framework', 'ready', 'labels', 'design', 'metadata'], catalogueFor('model')),
    ).not.toThrow();
  });
});
