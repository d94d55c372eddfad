import { describe, expect, it } from 'vitest';
import { parseListCondition } from './list-condition.js';
import { reportsProjectScope, subprojectListScope, withDescendants, type ProjectRecordLike } from './project-scope.js';
import { errorOf } from './test-records.js';

// P ─ P/.reports, P ─ Q ─ Q/.reports; root .reports; T ─ T/.reports
const projects: ProjectRecordLike[] = [
  { id: 'root-r', name: '.reports', basename: '.reports' },
  { id: 'P', name: 'P', basename: 'P' },
  { id: 'P-r', name: 'P/.reports', basename: '.reports', parent: 'P' },
  { id: 'Q', name: 'P/Q', basename: 'Q', parent: 'P' },
  { id: 'Q-r', name: 'P/Q/.reports', parent: 'Q' },
  { id: 'T', name: 'T', parent: null },
  { id: 'T-r', name: 'T/.reports', basename: '.reports', parent: 'T' },
];

const selected = (value: unknown, includeSubprojects = false) => {
  const bound = reportsProjectScope(value, includeSubprojects).bind(projects);
  return [...bound.projectIds!].sort();
};

describe('reports project selection (§3.9)', () => {
  it('[P] finds the reports of P/.reports, one level down', () => {
    expect(selected(['P'])).toEqual(['P-r']);
    expect(selected('P')).toEqual(['P-r']);
  });

  it('[P/.reports id] finds the same reports', () => {
    expect(selected(['P-r'])).toEqual(['P-r']);
  });

  it('null (or [null]) selects the root reports project', () => {
    expect(selected(null)).toEqual(['root-r']);
    expect(selected([null])).toEqual(['root-r']);
    expect(selected(['T', null])).toEqual(['T-r', 'root-r']);
  });

  it('[] selects nothing, and the bound scope says so', () => {
    const bound = reportsProjectScope([], false).bind(projects);
    expect(bound.empty).toBe(true);
    expect(bound.test({ project: 'P-r' })).toBe(false);
  });

  it('include_subprojects reaches deeper reports projects', () => {
    expect(selected(['P'], true)).toEqual(['P-r', 'Q-r']);
  });

  it('tests the record project against S', () => {
    const bound = reportsProjectScope(['P'], false).bind(projects);
    expect(bound.test({ project: 'P-r' })).toBe(true);
    expect(bound.test({ project: 'Q-r' })).toBe(false);
    expect(bound.test({})).toBe(false);
  });

  it('400/16 for a non-string item', () => {
    expect(errorOf(() => reportsProjectScope(['P', 3], false))).toEqual({
      code: '400/16',
      message: 'Invalid value for fields (invalid value type, string expected): field=project, value=3',
    });
  });
});

describe('task project condition with include_subprojects', () => {
  it('widens included and excluded ids with descendants', () => {
    expect([...withDescendants(['P'], projects)].sort()).toEqual(['P', 'P-r', 'Q', 'Q-r']);
    const include = subprojectListScope(parseListCondition('project', ['Q'])!).bind(projects);
    expect(include.test({ project: 'Q-r' })).toBe(true);
    expect(include.test({ project: 'P' })).toBe(false);
    const exclude = subprojectListScope(parseListCondition('project', ['-P'])!).bind(projects);
    expect(exclude.test({ project: 'Q' })).toBe(false);
    expect(exclude.test({ project: 'T' })).toBe(true);
  });
});
