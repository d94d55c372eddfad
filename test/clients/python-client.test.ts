// Operator and client kit issue, item 4: the Python client (clients/python) against the real service. It streams
// scalar, log and plot events with StreamEvents; mid-stream the test withholds the server's acks until the chunks
// are stored, then cuts the connection: the client reconnects and re-sends them under the same idempotency key
// and chunk ids, and every event is read back through the HTTP API exactly once.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { startCuttableProxy, type CuttableProxy } from './cuttable-proxy.js';
import { CLIENT_DIR, ensurePythonClientToolchain, PYTHON, pythonEnv } from './python-toolchain.js';

const DRIVER = path.join(path.dirname(new URL(import.meta.url).pathname), 'python-stream-driver.py');

let h: Harness;
let token: string;
let grpcPort: number;

beforeAll(async () => {
  await ensurePythonClientToolchain((line) => console.log(`[python client] ${line}`));
  h = await startHarness({ target: 'all' });
  token = await h.login(h.credentials.a);
  grpcPort = h.service.services.boundPorts.get('grpc')!;
}, 600_000);
afterAll(() => h?.stop());

/** Runs Debian's Python to its end. Never spawnSync: the service under test runs in this process's event loop. */
const runPython = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(PYTHON, args, { cwd: CLIENT_DIR, env: pythonEnv(), timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });

/** The driver as a child process whose JSON lines are read one at a time. */
function startDriver(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  next(): Promise<any>;
  exit: Promise<number | null>;
} {
  const child = spawn(PYTHON, [DRIVER, ...args], { env: pythonEnv() });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    exit,
    async next() {
      const line = await lines.next();
      if (line.done) throw new Error(`driver ended without output; stderr:\n${stderr}`);
      return JSON.parse(line.value);
    },
  };
}

async function readBack(task: string) {
  const log = await h.call('events.get_task_log', { task, batch_size: 10_000, navigate_earlier: false }, { token });
  const scalars = await h.call(
    'events.get_task_events',
    { task, event_type: 'training_stats_scalar', batch_size: 10_000 },
    { token },
  );
  const plots = await h.call('events.get_task_events', { task, event_type: 'plot', batch_size: 10_000 }, { token });
  for (const r of [log, scalars, plots]) expect(r.status).toBe(200);
  return {
    logs: (log.body.data.events as Array<{ msg: string }>).map((e) => e.msg),
    scalars: (scalars.body.data.events as Array<{ variant: string; iter: number }>).map(
      (e) => `${e.variant} ${e.iter}`,
    ),
    plots: (plots.body.data.events as Array<{ variant: string; iter: number }>).map((e) => `${e.variant} ${e.iter}`),
  };
}

/** Polls the HTTP API until `done` holds for what it reads. */
async function readUntil(task: string, done: (r: Awaited<ReturnType<typeof readBack>>) => boolean, what: string) {
  return eventually(() => readBack(task), done, { timeoutMs: 30_000, what: `${what} readable` });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const names = (phase: string, iterations: number[]) => iterations.map((i) => `${phase} ${i}`);

describe('clients/python', () => {
  it('the committed generated code is what protoc makes of proto/', async () => {
    const r = await runPython(['generate_grpc.py', '--check']);
    expect(r.stderr + r.stdout).toContain('matches proto/');
    expect(r.status).toBe(0);
  });

  it('its own unit tests pass (SDK event dicts, chunk buffer, error classes)', async () => {
    const r = await runPython(['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.']);
    expect(r.stderr).toMatch(/\nOK\n/);
    expect(r.status).toBe(0);
  });

  it('streams scalars, logs and plots; after a cut connection re-sends unacknowledged chunks, each event stored once', async () => {
    const proxy: CuttableProxy = await startCuttableProxy(grpcPort);
    const task = unique('pyclient-');
    const { access_key, secret_key } = h.credentials.a;
    const driver = startDriver([`127.0.0.1:${proxy.port}`, access_key, secret_key, task]);
    try {
      expect(await driver.next()).toMatchObject({ phase: 'a-acked', stats: { reconnects: 0 } });
      // Phase b's chunks reach the server and are stored, but their acks never reach the client.
      proxy.swallowReplies();
      driver.child.stdin.write('go\n');
      await readUntil(
        task,
        (r) =>
          names('b', range(10, 20)).every((n) => r.scalars.includes(n) && r.plots.includes(n)) &&
          range(10, 20).every((i) => r.logs.includes(`b line ${i}`)),
        'phase b',
      );
      proxy.cut();
      const b = await driver.next();
      expect(b).toMatchObject({ phase: 'b-acked' });
      expect(b.stats.reconnects).toBeGreaterThanOrEqual(1);
      // 10 iterations x 3 events in chunks of 9: 4 chunks, all unacknowledged when the connection was cut.
      expect(b.stats.resent_chunks).toBeGreaterThanOrEqual(4);
      expect(proxy.accepted).toBeGreaterThanOrEqual(2);
      const done = await driver.next();
      expect(done).toMatchObject({ phase: 'done', refusals: [] });
      expect(await driver.exit).toBe(0);
    } finally {
      driver.child.kill();
      await proxy.close();
    }
    // The sentinel is the client's last event of the task (same partition): once it is readable, so is the rest.
    const r = await readUntil(task, (x) => x.logs.includes('sentinel'), 'sentinel');
    const iterations = { a: range(0, 10), b: range(10, 20), c: range(20, 25) };
    const all = (f: (phase: string, i: number) => string) =>
      Object.entries(iterations).flatMap(([phase, its]) => its.map((i) => f(phase, i)));
    expect([...r.scalars].sort()).toEqual(all((p, i) => `${p} ${i}`).sort());
    expect([...r.plots].sort()).toEqual(all((p, i) => `${p} ${i}`).sort());
    expect([...r.logs].sort()).toEqual([...all((p, i) => `${p} line ${i}`), 'sentinel'].sort());
  });

  it('bad credentials: the client fails with the 401 at once instead of retrying', async () => {
    const started = Date.now();
    const driver = startDriver([
      `127.0.0.1:${grpcPort}`,
      h.credentials.a.access_key,
      'wrong-secret',
      unique('pyclient-bad-'),
    ]);
    try {
      expect(await driver.next()).toMatchObject({ phase: 'failed', error: 'PermanentRefusal', code: 401, subcode: 22 });
      expect(await driver.exit).toBe(3);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      driver.child.kill();
    }
  });

  it('a chunk refused as a whole (400/131) is dropped and reported; the stream goes on', async () => {
    const task = unique('pyclient-refused-');
    const script = `
import json, sys
from clearml_events_grpc import EventsStreamClient
c = EventsStreamClient(sys.argv[1], access_key=sys.argv[2], secret_key=sys.argv[3], linger_seconds=0.05)
bad = c.add_batch([{'type': 'log', 'task': 'not a valid id!', 'msg': 'x'}] * 3).wait(60)
good = c.add_batch([{'type': 'log', 'task': sys.argv[4], 'msg': 'kept'}]).wait(60)
c.close(60)
print(json.dumps({'bad': [(r.code, r.subcode, r.events) for r in bad.refusals], 'good': good.added, 'stats': c.stats}))
`;
    const r = await runPython([
      '-c',
      script,
      `127.0.0.1:${grpcPort}`,
      h.credentials.a.access_key,
      h.credentials.a.secret_key,
      task,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      bad: [[400, 131, 3]],
      good: 1,
      stats: { refused_chunks: 1, reconnects: 0 },
    });
  });
});
