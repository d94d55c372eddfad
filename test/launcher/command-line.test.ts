// The executables' command line and what they print before anything starts: `--version`
// (package.json, as clearml_build_info), `--help` (targets, options and every configuration
// variable, from the schema), refusals of unknown options; configuration errors and start-up
// output never show a secret value. Requires `npm run build` (npm test does it).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { stackSettings } from '../../deploy/bootstrap/runner.js';
import { findFreePort } from '../../deploy/local-stack/local-stack.js';
import { configSchema } from '../../shared/config/config.js';
import { TARGET_NAMES } from '../../shared/launcher/target.js';
import { baseEnv, exited, main, root, runLocal, start } from './launched-process.js';
import { eventually } from '../harness/eventually.js';

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const runCluster = path.join(root, 'dist/deploy/bootstrap/run-cluster.js');

function run(script: string, args: string[], env: Record<string, string> = baseEnv()) {
  return spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8', timeout: 30_000 });
}

describe('--version', () => {
  it.each([
    ['the launcher', main],
    ['npm start', runLocal],
    ['npm run start:cluster', runCluster],
  ])('%s prints the package name and version and exits 0', (_, script) => {
    for (const flag of ['--version', '-V']) {
      const result = run(script, [flag]);
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(`${pkg.name} ${pkg.version} (Node.js ${process.version})\n`);
    }
  });
});

describe('--help', () => {
  it('the launcher lists its targets, options and every configuration variable with its default', () => {
    const result = run(main, ['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage:\n  node dist\/shared\/launcher\/main\.js \[TARGET\] \[OPTIONS\]$/m);
    for (const target of TARGET_NAMES) expect(result.stdout).toMatch(new RegExp(`^  ${target} +\\S`, 'm'));
    expect(result.stdout).toContain('  -h, --help');
    expect(result.stdout).toContain('  -V, --version');
    for (const name of Object.keys(configSchema.shape))
      expect(result.stdout).toMatch(new RegExp(`^  ${name}  \\(default: `, 'm'));
    expect(result.stdout).toMatch(/^ {2}API_PORT {2}\(default: 8008\)\n {6}HTTP port/m);
    expect(result.stdout).toMatch(
      /^ {2}AUTH_SECRET {2}\(default: generated into DATA_DIR\/auth-secret; secret, never shown\)$/m,
    );
    // Help wins over a target and starts nothing.
    expect(run(main, ['query', '-h']).stdout).toBe(result.stdout);
  });

  it('npm start and start:cluster list the service variables and the local stack ones, and take no target', () => {
    for (const [script, command] of [
      [runLocal, 'npm start'],
      [runCluster, 'npm run start:cluster'],
    ] as const) {
      const result = run(script, ['--help']);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`  ${command} [-- OPTIONS]`);
      for (const name of [...Object.keys(configSchema.shape), ...Object.keys(stackSettings.shape)]) {
        expect(result.stdout).toMatch(new RegExp(`^  ${name}  \\(default: `, 'm'));
      }
      const refused = run(script, ['query']);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`${command} takes no arguments, got: query`);
    }
  });

  it('an unknown option is refused with exit code 2, naming it, before anything starts', () => {
    for (const script of [main, runLocal, runCluster]) {
      const result = run(script, ['--verbose']);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('Unknown option "--verbose": expected --help or --version');
      expect(result.stdout).toBe('');
    }
  });
});

describe('secrets in configuration errors and start-up output', () => {
  it('a bad secret is named but its value never shown, from the environment or CONFIG_FILE', () => {
    const env = baseEnv({
      AUTH_SECRET: 'short-AUTH-SECRET-value',
      NATS_URL: 'nats://user:NATS-PASS-value@nats:not-a-port',
    });
    const file = path.join(env.DATA_DIR!, 'config.json');
    writeFileSync(file, JSON.stringify({ INFLUX_PASSWORD: 918273645, CLEARML_TOKEN_SECRET: ['TOKEN-SECRET-value'] }));
    const result = run(main, ['query'], { ...env, CONFIG_FILE: file });
    expect(result.status).toBe(2);
    for (const name of ['AUTH_SECRET', 'NATS_URL', 'INFLUX_PASSWORD', 'CLEARML_TOKEN_SECRET'])
      expect(result.stderr).toMatch(new RegExp(`^  - ${name}: `, 'm'));
    for (const value of ['AUTH-SECRET', 'NATS-PASS', '918273645', 'TOKEN-SECRET'])
      expect(result.stdout + result.stderr).not.toContain(value);
  });

  it('npm start shows a store URL it waits for without its password', async () => {
    const stack = inject('stack');
    const redis = new URL(stack.redisUrl);
    const env = {
      ...baseEnv({ API_PORT: String(await findFreePort()), GRPC_PORT: '0' }),
      NATS_URL: stack.natsUrl,
      INFLUX_URL: stack.influxUrl,
      REDIS_URL: `redis://default:REDIS-PASS-value@${redis.host}`,
    };
    const { child, output } = start(runLocal, [], env);
    await eventually(async () => output().includes('waiting for the existing Redis'), undefined, {
      timeoutMs: 30_000,
      what: 'the wait for the existing Redis',
      retryErrors: true,
    });
    child.kill('SIGTERM');
    await exited(child);
    expect(output()).toContain(`waiting for the existing Redis at redis://***@${redis.host}`);
    expect(output()).not.toContain('REDIS-PASS');
  });
});
