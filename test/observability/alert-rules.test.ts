/**
 * The Prometheus alert rules (deploy/prometheus/alerts.yml) are valid, and
 * each alert fires on the series that should raise it and not on healthy
 * ones (deploy/prometheus/alerts.test.yml), checked by promtool. promtool
 * comes from Debian's `prometheus` package, installed when missing like the
 * stack's servers.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, expect, it } from 'vitest';
import { ensureDebianPackages, findBinary } from '../../deploy/local-stack/install-packages.js';

let promtool: string;

beforeAll(async () => {
  await ensureDebianPackages(
    (line) => console.log(`[promtool] ${line}`),
    [{ name: 'prometheus', present: () => findBinary('promtool') !== undefined }],
  );
  promtool = findBinary('promtool')!;
}, 600_000);

function run(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(promtool, args, { cwd: 'deploy/prometheus', encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

it('promtool check rules accepts the alert rules', () => {
  const result = run('check', 'rules', 'alerts.yml');
  expect(result.output).toMatch(/SUCCESS: \d+ rules found/);
  expect(result.status).toBe(0);
});

it('promtool test rules: every alert fires on its series', () => {
  const result = run('test', 'rules', 'alerts.test.yml');
  expect(result.output).toContain('SUCCESS');
  expect(result.status).toBe(0);
});
