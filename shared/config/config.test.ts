import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ API_HOST: '127.0.0.1', API_PORT: 8008, GRPC_PORT: 8009, MAX_BODY_BYTES: 64 * 1024 * 1024, INFLUX_DB: 'clearml' });
    expect(config.DATA_DIR).toBe(path.resolve('var'));
    expect(config.CREDENTIALS_FILE).toBe(path.resolve('var', 'credentials.json'));
    expect(config.MAX_LINE_BYTES).toBe(config.MAX_BODY_BYTES);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names the variable and what it expects', () => {
    expect(problems({ API_PORT: 'abc' })).toEqual(['API_PORT: expected a TCP port number (1-65535) for the HTTP API, got "abc"']);
    expect(problems({ REDIS_URL: 'http://x' })[0]).toBe('REDIS_URL: expected a URL like redis://127.0.0.1:6379, got "http://x"');
    expect(problems({ LOG_LEVEL: 'loud' })[0]).toMatch(/^LOG_LEVEL: expected one of fatal, error, warn/);
  });

  it('reports every problem together', () => {
    const found = problems({ API_PORT: '70000', MAX_BODY_BYTES: '-1', NATS_URL: 'nope', AUTH_SECRET: 'short' });
    expect(found.map((p) => p.split(':')[0]).sort()).toEqual(['API_PORT', 'AUTH_SECRET', 'MAX_BODY_BYTES', 'NATS_URL']);
  });

  it('reads CONFIG_FILE, with the environment winning', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ API_PORT: 9000, GRPC_PORT: 9001 }));
    const config = loadConfig({ CONFIG_FILE: file, GRPC_PORT: '9500' });
    expect(config.API_PORT).toBe(9000);
    expect(config.GRPC_PORT).toBe(9500);
  });

  it('rejects an unreadable or non-object CONFIG_FILE', () => {
    expect(problems({ CONFIG_FILE: '/nonexistent/config.json' })[0]).toMatch(/^CONFIG_FILE: cannot read/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, '[1]');
    expect(problems({ CONFIG_FILE: file })[0]).toMatch(/^CONFIG_FILE: .* must hold a JSON object/);
  });
});
