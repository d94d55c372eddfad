import { createServer, type Server } from 'node:net';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort, isPortFree } from './free-port.js';
import { startLocalStack, type LocalStack } from './local-stack.js';
import { influxPing, natsInfo, redisEndpoint, redisPing, tcpExchange } from './readiness-probes.js';

// Real servers, real processes: each test starts its own stack on free ports.
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clearml-stack-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function startInTempDir(): Promise<LocalStack> {
  const stack = await startLocalStack({ dataDir: await tempDir() });
  cleanups.push(() => stack.stop());
  return stack;
}

const portOf = (url: string): number => Number(new URL(url).port);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** One command; `lines` CRLF-terminated lines make the answer complete (CONFIG GET of one key: 5, GET: 2, SET: 1). */
async function redisCommand(url: string, command: string[], lines = 5): Promise<string> {
  const resp = `*${command.length}\r\n${command.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return tcpExchange(redisEndpoint(url), resp, (t) => t.split('\r\n').length > lines, 5_000);
}

async function influxQuery(url: string, q: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/query`, {
    method: 'POST',
    body: new URLSearchParams({ q }),
    headers: { connection: 'close' },
  });
  return { status: res.status, body: await res.text() };
}

describe('startLocalStack', { timeout: 60_000 }, () => {
  it('starts answering servers, then stops them all and frees their ports', async () => {
    const dataDir = await tempDir();
    const stack = await startLocalStack({ dataDir });
    cleanups.push(() => stack.stop());
    expect(stack.pids).toHaveLength(3);
    expect(stack.natsUrl).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.influxUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);

    const info = await natsInfo(stack.natsUrl, 5_000);
    expect(info.jetstream).toBe(true);
    expect(info.max_payload).toBe(8 * 1024 * 1024);

    await influxPing(stack.influxUrl, 5_000);
    const created = await influxQuery(stack.influxUrl, 'CREATE DATABASE x');
    expect(created.status).toBe(200);
    expect(created.body).not.toContain('error');

    await redisPing(stack.redisUrl, 5_000);
    expect(await redisCommand(stack.redisUrl, ['CONFIG', 'GET', 'appendonly'])).toContain('appendonly\r\n$3\r\nyes');

    expect((await readdir(join(dataDir, 'nats'))).sort()).toEqual(
      expect.arrayContaining(['jetstream', 'nats-server.conf', 'nats-server.log']),
    );
    expect(await readdir(join(dataDir, 'influxdb'))).toEqual(
      expect.arrayContaining(['data', 'meta', 'influxdb.conf', 'influxd.log']),
    );
    expect(await readdir(join(dataDir, 'redis'))).toEqual(expect.arrayContaining(['redis-server.log']));

    const ports = [stack.natsUrl, stack.influxUrl, stack.redisUrl].map(portOf);
    await stack.stop();
    for (const pid of stack.pids) expect(isAlive(pid), `pid ${pid} still alive`).toBe(false);
    for (const port of ports) expect(await isPortFree(port), `port ${port} still bound`).toBe(true);
    await stack.stop(); // idempotent
  });

  it('runs two stacks side by side without port clashes', async () => {
    const [a, b] = await Promise.all([startInTempDir(), startInTempDir()]);
    const ports = [a, b].flatMap((s) => [s.natsUrl, s.influxUrl, s.redisUrl].map(portOf));
    expect(new Set(ports).size).toBe(6);
    for (const stack of [a, b]) {
      await natsInfo(stack.natsUrl, 5_000);
      await influxPing(stack.influxUrl, 5_000);
      await redisPing(stack.redisUrl, 5_000);
    }
    await Promise.all([a.stop(), b.stop()]);
    for (const pid of [...a.pids, ...b.pids]) expect(isAlive(pid)).toBe(false);
  });

  it('starts nothing for servers given by URL, only waits for them', async () => {
    const running = await startInTempDir();
    const reused = await startLocalStack({
      dataDir: await tempDir(),
      existing: { natsUrl: running.natsUrl, influxUrl: running.influxUrl, redisUrl: running.redisUrl },
    });
    expect(reused.pids).toEqual([]);
    expect([reused.natsUrl, reused.influxUrl, reused.redisUrl]).toEqual([
      running.natsUrl,
      running.influxUrl,
      running.redisUrl,
    ]);
    await reused.stop();
    for (const pid of running.pids) expect(isAlive(pid)).toBe(true);
    await running.stop();
  });

  it('names the variable to change when a fixed port is busy', async () => {
    const blocker: Server = createServer();
    const port = await findFreePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const attempt = startLocalStack({ dataDir: await tempDir(), redisPort: port });
    await expect(attempt).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}.*busy.*REDIS_PORT.*REDIS_URL`, 's'));
  });

  it('names the server and shows its log when it dies during start-up', async () => {
    const dataDir = await tempDir();
    // A file where JetStream wants its store directory makes nats-server quit.
    await mkdir(join(dataDir, 'nats'), { recursive: true });
    await writeFile(join(dataDir, 'nats', 'jetstream'), 'not a directory');
    const lines: string[] = [];
    const error = await startLocalStack({ dataDir, log: (line) => lines.push(line) }).then(
      () => new Error('expected a failure'),
      (e: Error) => e,
    );
    expect(error.message).toMatch(
      /^NATS exited during start-up \(exit code \d+\)\. The end of its log .*nats-server\.log:\n/,
    );
    expect(error.message).toContain("Can't start JetStream");
    // The servers that did come up were stopped again.
    const started = lines.flatMap((line) => [...(/ready at .* \(pid (\d+)\)/.exec(line)?.slice(1) ?? [])]);
    expect(started).toHaveLength(2);
    for (const pid of started) expect(isAlive(Number(pid))).toBe(false);
  });

  it('names each server whose existing URL does not answer', async () => {
    const [nats, influx, redis] = await Promise.all([findFreePort(), findFreePort(), findFreePort()]);
    const attempt = startLocalStack({
      dataDir: await tempDir(),
      existing: {
        natsUrl: `nats://127.0.0.1:${nats}`,
        influxUrl: `http://127.0.0.1:${influx}`,
        redisUrl: `redis://127.0.0.1:${redis}`,
      },
      readyTimeoutMs: 500,
    });
    const error = await attempt.then(
      () => new Error('expected a failure'),
      (e: Error) => e,
    );
    expect(error.message).toMatch(`NATS at nats://127.0.0.1:${nats} (NATS_URL) did not answer`);
    expect(error.message).toMatch(`InfluxDB at http://127.0.0.1:${influx} (INFLUX_URL) did not answer`);
    expect(error.message).toMatch(`Redis at redis://127.0.0.1:${redis} (REDIS_URL) did not answer`);
  });

  it('restarts a server that dies, on its port, with a log line', async () => {
    const lines: string[] = [];
    const stack = await startLocalStack({
      dataDir: await tempDir(),
      restartOnExit: true,
      log: (line) => lines.push(line),
    });
    cleanups.push(() => stack.stop());
    const first = stack.pidOf('redis')!;
    await redisCommand(stack.redisUrl, ['CONFIG', 'SET', 'appendfsync', 'always'], 1); // the next write is on disk before the kill
    await redisCommand(stack.redisUrl, ['SET', 'kept', 'still'], 1);
    process.kill(first, 'SIGKILL');
    const deadline = Date.now() + 20_000;
    while (
      stack.pidOf('redis') === first ||
      !(await redisPing(stack.redisUrl, 1_000).then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`Redis was not restarted; log: ${lines.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(isAlive(first)).toBe(false);
    expect(stack.pids).toContain(stack.pidOf('redis'));
    expect(lines.some((line) => line.startsWith(`Redis (pid ${first}) exited unexpectedly: signal SIGKILL`))).toBe(
      true,
    );
    expect(lines).toContain('restarting Redis in 1 s');
    // Same data directory and port: what was written before the kill is there.
    expect(await redisCommand(stack.redisUrl, ['GET', 'kept'], 2)).toContain('still');
    await stack.stop();
    for (const pid of stack.pids) expect(isAlive(pid)).toBe(false);
  });

  it('stopServer keeps a server down until startServer brings it back on its port', async () => {
    const stack = await startInTempDir();
    await stack.stopServer('influxdb');
    await expect(influxPing(stack.influxUrl, 1_000)).rejects.toThrow();
    await stack.startServer('influxdb');
    await influxPing(stack.influxUrl, 5_000);
    await expect(stack.startServer('influxdb')).resolves.toBeUndefined(); // already running: nothing to do
  });

  it('applies the durability and capacity settings: Redis appendfsync, the JetStream storage cap', async () => {
    const stack = await startLocalStack({
      dataDir: await tempDir(),
      settings: { redisAppendFsync: 'always', natsMaxFileStoreBytes: 1024 * 1024 },
    });
    cleanups.push(() => stack.stop());
    expect(await redisCommand(stack.redisUrl, ['CONFIG', 'GET', 'appendfsync'])).toContain(
      'appendfsync\r\n$6\r\nalways',
    );
    const { connect } = await import('nats');
    const nc = await connect({ servers: stack.natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: 'capped', subjects: ['capped.>'] });
      const js = nc.jetstream();
      const chunk = new Uint8Array(100 * 1024);
      let stored = 0;
      const refusal = await (async () => {
        for (let i = 0; i < 40; i++) {
          try {
            await js.publish('capped.x', chunk);
            stored += chunk.length;
          } catch (error) {
            return error as { api_error?: { err_code?: number; description?: string } };
          }
        }
        return undefined;
      })();
      // JetStream refuses the publish ("insufficient resources") and stays up.
      expect(refusal?.api_error?.description).toBe('insufficient resources');
      expect(stored).toBeLessThanOrEqual(1024 * 1024 + chunk.length);
      expect((await jsm.getAccountInfo()).streams).toBe(1);
    } finally {
      await nc.close();
    }
  });

  it('rejects an existing URL that is not a URL at once', async () => {
    const attempt = startLocalStack({
      dataDir: await tempDir(),
      existing: { natsUrl: 'http://x', influxUrl: 'localhost:8086', redisUrl: 'http://x' },
    });
    await expect(attempt).rejects.toThrow('INFLUX_URL=localhost:8086 is not a valid http/https URL');
  });
});
