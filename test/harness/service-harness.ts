/**
 * Starts a target in-process against the suite's throwaway stack, isolated
 * from other test files: its own DATA_DIR, credentials (two companies),
 * JetStream stream prefix and InfluxDB database.
 *
 * In the cluster pass (TEST_SHAPE=cluster, vitest project `cluster`) it
 * starts nothing: it answers a harness on the one cluster of the pass
 * (test/harness/cluster-global-setup.ts), with a pair of companies no other
 * file uses; `service` is not there, so only files that go through the
 * public API run in that pass.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeSync, openSync } from 'node:fs';
import { inject } from 'vitest';
import './stack-context.js';
import { loadConfig, type Config } from '../../shared/config/config.js';
import { startService, type RunningService } from '../../shared/launcher/service.js';
import { targetModules } from '../../shared/launcher/target-modules.js';
import type { TargetModule, TargetName } from '../../shared/launcher/target.js';
import { createLogger } from '../../shared/observability/logger.js';
import { httpRequest } from './http-request.js';

export interface TestCredential {
  access_key: string;
  secret_key: string;
  company: string;
  user: string;
}

export interface Harness {
  readonly baseUrl: string;
  /** The in-process service (absent in the cluster pass). */
  readonly service: RunningService;
  /** host:port of the gRPC ingest (nginx's in the cluster pass). */
  readonly grpcAddress: string;
  readonly config: Readonly<Config>;
  readonly env: Record<string, string>;
  /** Two companies, A and B, each with one key pair. */
  readonly credentials: { a: TestCredential; b: TestCredential };
  basic(credential: TestCredential): string;
  /** A Bearer token from auth.login. */
  login(credential: TestCredential): Promise<string>;
  /** POSTs a JSON body to an operation with a Bearer token; returns the status and the parsed envelope. */
  call(operation: string, body: unknown, options?: CallOptions): Promise<CallResult>;
  stop(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  method?: string;
  headers?: Record<string, string>;
  rawBody?: string | Buffer;
}

export interface CallResult {
  status: number;
  body: any;
  headers: IncomingHttpHeaders;
}

export const unique = (prefix: string): string => `${prefix}${randomBytes(6).toString('hex')}`;

export function credential(company: string): TestCredential {
  return { access_key: unique('AK'), secret_key: unique('sk-'), company, user: unique('user-') };
}

export async function startHarness(
  options: {
    target?: TargetName;
    env?: Record<string, string>;
    modules?: Partial<Record<Exclude<TargetName, 'all'>, TargetModule>>;
  } = {},
): Promise<Harness> {
  if (process.env.TEST_SHAPE === 'cluster') {
    const cluster = inject('cluster').env;
    const settings = Object.entries(options.env ?? {})
      .filter(([name, value]) => cluster[name] !== value)
      .map(([name]) => name);
    // The pass's one cluster has one configuration: a file that needs another cannot run in it.
    if (settings.length > 0)
      throw new Error(
        `this file configures the service (${settings.join(', ')}): it belongs to the single-process pass only`,
      );
    return clusterPassHarness();
  }
  const stack = inject('stack');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-harness-'));
  const credentials = { a: credential(unique('company-a-')), b: credential(unique('company-b-')) };
  const credentialsFile = path.join(dataDir, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify([credentials.a, credentials.b]));
  const suffix = randomBytes(4).toString('hex');
  const env: Record<string, string> = {
    API_PORT: '0',
    GRPC_PORT: '0',
    DATA_DIR: dataDir,
    CREDENTIALS_FILE: credentialsFile,
    NATS_URL: stack.natsUrl,
    INFLUX_URL: stack.influxUrl,
    REDIS_URL: stack.redisUrl,
    NATS_STREAM_PREFIX: `t${suffix}`,
    INFLUX_DB: `t${suffix}`,
    REDIS_KEY_PREFIX: `t${suffix}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    // Files share two cores, so a file's writers may well be seconds behind while it sends its next request: the
    // production bound would refuse it at random. With no writer (the ingest target) the backlog only ages.
    INGEST_MAX_WRITER_LAG_MS: options.target === 'ingest' ? '0' : '60000',
    ...options.env,
  };
  const config = loadConfig(env);
  const service = await startService({
    target: options.target ?? 'all',
    config,
    logger: createLogger({ level: config.LOG_LEVEL, name: 'test' }),
    modules: { ...targetModules, ...options.modules },
  });
  const baseUrl = `http://127.0.0.1:${service.httpPort}`;
  const basic = basicAuthorization;
  const call = apiCaller(baseUrl);
  return {
    baseUrl,
    service,
    get grpcAddress() {
      return `127.0.0.1:${service.services.boundPorts.get('grpc')}`;
    },
    config,
    env,
    credentials,
    basic,
    async login(c) {
      // A target without auth.login (ingest, writer) still verifies tokens: issue one directly.
      return loginThrough(call, c, () =>
        service.services.tokens.issue({ user: c.user, company: c.company, role: 'user' }, 3600),
      );
    },
    call,
    stop: () => service.stop(),
  };
}

/** A harness on the cluster of the cluster pass, with the first pair of companies no other harness took. */
function clusterPassHarness(): Harness {
  const cluster = inject('cluster');
  const pair = cluster.pairs.findIndex((_, n) => {
    try {
      closeSync(openSync(path.join(cluster.claims, String(n)), 'wx'));
      return true;
    } catch {
      return false;
    }
  });
  if (pair < 0)
    throw new Error(
      `the cluster pass has ${cluster.pairs.length} pairs of companies; a harness more needs CLUSTER_CREDENTIAL_PAIRS raised`,
    );
  const stack = inject('stack');
  const env = { ...cluster.env, NATS_URL: stack.natsUrl, INFLUX_URL: stack.influxUrl, REDIS_URL: stack.redisUrl };
  const call = apiCaller(cluster.baseUrl);
  return {
    baseUrl: cluster.baseUrl,
    get service(): RunningService {
      throw new Error(
        'no in-process service in the cluster pass: this test file belongs to the single-process pass only',
      );
    },
    grpcAddress: cluster.grpcAddress,
    config: loadConfig(env),
    env,
    credentials: cluster.pairs[pair]!,
    basic: basicAuthorization,
    login: (c) => loginThrough(call, c),
    call,
    stop: async () => undefined,
  };
}

export const basicAuthorization = (c: TestCredential): string =>
  `Basic ${Buffer.from(`${c.access_key}:${c.secret_key}`).toString('base64')}`;

/** Calls operations under `baseUrl`: POSTs a JSON body with a Bearer token; returns the status and the parsed envelope. */
export function apiCaller(baseUrl: string): Harness['call'] {
  return async (operation, body, callOptions = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...callOptions.headers };
    if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    const response = await httpRequest(`${baseUrl}/${operation}`, {
      method: callOptions.method ?? 'POST',
      headers,
      body: callOptions.rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    let parsed: unknown = response.text;
    try {
      parsed = JSON.parse(response.text);
    } catch {
      // not JSON (415, downloads): keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
}

/** A Bearer token from auth.login; `fallback` when the target has no auth.login (404). */
export async function loginThrough(call: Harness['call'], c: TestCredential, fallback?: () => string): Promise<string> {
  const result = await call('auth.login', undefined, {
    method: 'GET',
    headers: { authorization: basicAuthorization(c) },
  });
  if (result.status === 404 && fallback) return fallback();
  if (result.status !== 200) throw new Error(`login failed: ${JSON.stringify(result.body)}`);
  return result.body.data.token as string;
}
