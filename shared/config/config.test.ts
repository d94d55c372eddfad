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
    expect(config).toMatchObject({
      API_HOST: '127.0.0.1',
      API_PORT: 8008,
      GRPC_PORT: 8009,
      MAX_BODY_BYTES: 64 * 1024 * 1024,
      INFLUX_DB: 'clearml',
    });
    expect(config.DATA_DIR).toBe(path.resolve('var'));
    expect(config.CREDENTIALS_FILE).toBe(path.resolve('var', 'credentials.json'));
    expect(config.MAX_LINE_BYTES).toBe(config.MAX_BODY_BYTES);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names the variable and what it expects', () => {
    expect(problems({ API_PORT: 'abc' })).toEqual([
      'API_PORT: expected a TCP port number (1-65535) for the HTTP API, got "abc"',
    ]);
    expect(problems({ REDIS_URL: 'http://x' })[0]).toBe(
      'REDIS_URL: expected a URL like redis://127.0.0.1:6379, or a comma-separated list of them, got "http://x"',
    );
    expect(problems({ LOG_LEVEL: 'loud' })[0]).toMatch(/^LOG_LEVEL: expected one of fatal, error, warn/);
  });

  it('takes several seed URLs for the NATS and Redis clusters, each checked', () => {
    const config = loadConfig({
      NATS_URL: 'nats://a:4222, nats://b:4222,nats://c:4222',
      REDIS_URL: 'redis://a:7000,redis://b:7001',
      REDIS_CLUSTER: 'true',
    });
    expect(config.NATS_URL).toBe('nats://a:4222, nats://b:4222,nats://c:4222');
    expect(config.REDIS_URL).toBe('redis://a:7000,redis://b:7001');
    expect(config.REDIS_CLUSTER).toBe(true);
    expect(loadConfig({}).REDIS_CLUSTER).toBe(false);
    expect(problems({ REDIS_URL: 'redis://a:7000,http://b:7001' })[0]).toMatch(
      /^REDIS_URL: expected a URL like redis:\/\/127\.0\.0\.1:6379, or a comma-separated list/,
    );
    expect(loadConfig({ NATS_URL: 'nats://a:4222,,' }).NATS_URL).toBe('nats://a:4222,,');
    expect(problems({ NATS_URL: ',' })[0]).toMatch(/^NATS_URL: /);
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

  it('never echoes secrets: secret variables by length only, URL credentials and queries masked', () => {
    const secret = 'hunter2-short';
    const found = problems({
      AUTH_SECRET: secret,
      REDIS_URL: 'http://admin:p@ss/w0rd@redis:6379',
      INFLUX_URL: 'ftp://reader:s3cret@influx:8086/?password=qwerty',
      NATS_URL: 'nats//user:tok3n@nats:4222',
    });
    const text = found.join('\n');
    for (const leaked of [secret, 'p@ss', 'w0rd', 's3cret', 'qwerty', 'tok3n']) expect(text).not.toContain(leaked);
    expect(found).toContain(
      `AUTH_SECRET: expected at least 32 characters of secret, got a value of ${secret.length} characters (not shown: secret)`,
    );
    expect(found).toContain(
      'REDIS_URL: expected a URL like redis://127.0.0.1:6379, or a comma-separated list of them, got "http://***@redis:6379"',
    );
    expect(found).toContain('INFLUX_URL: expected a URL like http://127.0.0.1:8086, got "ftp://***@influx:8086/?***"');
  });

  it('never echoes a secret from CONFIG_FILE, neither a wrong value nor the text around a JSON syntax error', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
    const wrongType = path.join(dir, 'wrong.json');
    writeFileSync(
      wrongType,
      JSON.stringify({ AUTH_SECRET: { nested: 'top-secret-value-in-an-object' }, INFLUX_PASSWORD: 12345678 }),
    );
    const found = problems({ CONFIG_FILE: wrongType }).join('\n');
    expect(found).toMatch(/^AUTH_SECRET: /m);
    expect(found).toMatch(/^INFLUX_PASSWORD: /m);
    expect(found).not.toContain('top-secret');
    expect(found).not.toContain('12345678');
    const broken = path.join(dir, 'broken.json');
    // Unquoted: JSON.parse's own message would quote the text around the fault.
    writeFileSync(broken, '{"AUTH_SECRET": the-secret-itself-0123456789abcdefghij}');
    const brokenProblems = problems({ CONFIG_FILE: broken }).join('\n');
    expect(brokenProblems).toMatch(/not valid JSON/);
    expect(brokenProblems).not.toContain('the-sec');
  });

  it('reads the operations listener, none by default, on a port of its own', () => {
    expect(loadConfig({}).OPS_PORT).toBeUndefined();
    const config = loadConfig({ OPS_PORT: '9100' });
    expect([config.OPS_PORT, config.OPS_MAX_CONNECTIONS]).toEqual([9100, 64]);
    expect(loadConfig({ OPS_PORT: '0', API_PORT: '0', GRPC_PORT: '0' }).OPS_PORT).toBe(0);
    expect(problems({ OPS_PORT: '8008' })[0]).toMatch(/^OPS_PORT: expected a port other than API_PORT and GRPC_PORT/);
    expect(problems({ OPS_PORT: '9100', GRPC_PORT: '9100' })[0]).toMatch(/^OPS_PORT: expected a port other/);
  });

  it('reads the HTTP timeouts and the CORS origins, and checks them', () => {
    const config = loadConfig({
      CORS_ALLOWED_ORIGINS: 'https://ui.example.com, http://localhost:8080',
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
    });
    expect(config.CORS_ALLOWED_ORIGINS).toEqual(['https://ui.example.com', 'http://localhost:8080']);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: '*' }).CORS_ALLOWED_ORIGINS).toBe('*');
    expect(loadConfig({}).CORS_ALLOWED_ORIGINS).toEqual([]);
    expect(config.HTTP_REQUEST_TIMEOUT_MS).toBe(5000);
    expect(problems({ CORS_ALLOWED_ORIGINS: 'https://ui.example.com/path' })[0]).toMatch(
      /^CORS_ALLOWED_ORIGINS: expected \* or a comma-separated list of origins/,
    );
    expect(problems({ HTTP_HEADERS_TIMEOUT_MS: '9000', HTTP_REQUEST_TIMEOUT_MS: '5000' })[0]).toMatch(
      /^HTTP_HEADERS_TIMEOUT_MS: expected at most HTTP_REQUEST_TIMEOUT_MS/,
    );
  });
});
