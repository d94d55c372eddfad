/**
 * One store server of a test file's own (the other two are the suite's
 * shared ones), so that the test may stop it: SIGSTOP and SIGCONT go to the
 * pid this file started, never to a shared server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { startLocalStack, type LocalStack } from '../../deploy/local-stack/local-stack.js';
import type { ServerOptions } from '../../deploy/local-stack/server-configs.js';
import { startHarness, type CallResult, type Harness } from '../harness/service-harness.js';
import '../harness/stack-context.js';

/** Scheduling slack on a loaded 2-core machine, added to a timeout a test expects an answer within. */
export const MARGIN_MS = 1_500;

export type StoreServer = 'nats' | 'influxdb' | 'redis';

export interface PrivateServer {
  readonly url: string;
  /** The harness variables that point a service at this server instead of the shared one. */
  readonly env: Record<string, string>;
  /** SIGSTOP: the process keeps its sockets but answers nothing. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  stop(): Promise<void>;
}

export async function startPrivateServer(
  server: StoreServer,
  settings: Partial<ServerOptions> = {},
): Promise<PrivateServer> {
  const shared = inject('stack');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `clearml-private-${server}-`));
  const existing = { natsUrl: shared.natsUrl, influxUrl: shared.influxUrl, redisUrl: shared.redisUrl };
  if (server === 'nats') delete (existing as Partial<typeof existing>).natsUrl;
  if (server === 'influxdb') delete (existing as Partial<typeof existing>).influxUrl;
  if (server === 'redis') delete (existing as Partial<typeof existing>).redisUrl;
  const stack: LocalStack = await startLocalStack({ dataDir, existing, settings });
  const [pid] = stack.pids;
  if (pid === undefined || stack.pids.length !== 1)
    throw new Error(`expected exactly one started server, got pids ${stack.pids.join(', ')}`);
  const url = server === 'nats' ? stack.natsUrl : server === 'influxdb' ? stack.influxUrl : stack.redisUrl;
  const variable = server === 'nats' ? 'NATS_URL' : server === 'influxdb' ? 'INFLUX_URL' : 'REDIS_URL';
  let paused = false;
  return {
    url,
    env: { [variable]: url },
    pause() {
      process.kill(pid, 'SIGSTOP');
      paused = true;
    },
    resume() {
      process.kill(pid, 'SIGCONT');
      paused = false;
    },
    async stop() {
      // A stopped process would only take its SIGTERM after the kill timeout.
      if (paused) process.kill(pid, 'SIGCONT');
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Milliseconds `call` took, with its result. */
export async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await call();
  return { ms: performance.now() - started, result };
}

export interface StallFixture {
  readonly server: PrivateServer;
  /** The whole service (target all) on the private server and the suite's other two. */
  readonly h: Harness;
  /** Company A's token. */
  readonly token: string;
  /** events.add_batch of these events as NDJSON. */
  add(events: object[]): Promise<CallResult>;
}

/** A private server and the service on it, for the test file that calls it (started before all, stopped after). */
export function usePrivateServer(server: StoreServer, env: Record<string, string>): StallFixture {
  const fixture = {
    add: (events: object[]) =>
      fixture.h.call('events.add_batch', undefined, {
        token: fixture.token,
        headers: { 'content-type': 'application/json-lines' },
        rawBody: events.map((e) => JSON.stringify(e)).join('\n'),
      }),
  } as { server: PrivateServer; h: Harness; token: string; add: StallFixture['add'] };
  beforeAll(async () => {
    fixture.server = await startPrivateServer(server);
    fixture.h = await startHarness({ target: 'all', env: { ...fixture.server.env, ...env } });
    fixture.token = await fixture.h.login(fixture.h.credentials.a);
  }, 120_000);
  afterAll(async () => {
    await fixture.h?.stop();
    await fixture.server?.stop();
  });
  return fixture;
}
