// The formatter's configuration (.prettierrc.json, .prettierignore) was applied once to the
// whole tree (issue 16); this keeps it so: a change that is not formatted fails here, and
// `npm run format` fixes it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('formatting', () => {
  it('every source and JSON file is as prettier writes it (npm run format fixes it)', () => {
    const result = spawnSync('npm', ['run', '--silent', 'format:check'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(result.error).toBeUndefined();
    expect(`${result.stdout}${result.stderr}`.replace(/^npm warn .*\n/gm, '').trim()).toBe('');
    expect(result.status).toBe(0);
  }, 200_000);
});
