// The gRPC contract stays linted (buf STANDARD + COMMENTS) and its generated code current.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

describe('proto/', () => {
  it('passes buf lint', () => {
    const result = spawnSync('npm', ['run', '--silent', 'proto:lint'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.stdout + result.stderr).not.toMatch(/\.proto:\d+:\d+:/);
    expect(result.status).toBe(0);
  }, 150_000);
});
