// Every catalogue entry is documented in docs/errors.md, with its codes (as fastify checks its own catalogue).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiError, errorCatalogue, formatMessage } from './error-catalogue.js';

const docs = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

describe('error catalogue', () => {
  it.each(Object.entries(errorCatalogue))('%s is documented with its HTTP status and codes', (id, entry) => {
    const row = docs.split('\n').find((line) => line.startsWith(`| \`${id}\` |`));
    expect(row, `docs/errors.md has no row for ${id}`).toBeDefined();
    expect(row).toContain(`| ${entry.http} | ${entry.code}/${entry.subcode} |`);
  });

  it('uses the HTTP status as result_code', () => {
    for (const entry of Object.values(errorCatalogue)) expect(entry.code).toBe(entry.http);
  });

  it('formats messages the ClearML way', () => {
    expect(formatMessage('Invalid task id', undefined, [['ids', ['t1', 't2']]])).toBe('Invalid task id: ids=(t1, t2)');
    expect(formatMessage('Validation error', 'field is required!')).toBe('Validation error (field is required!)');
    expect(apiError('invalid_task_id', undefined, { id: 'x', company: 'c' }).message).toBe(
      'Invalid task id: id=x, company=c',
    );
  });
});
