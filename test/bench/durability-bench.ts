/**
 * `npm run bench:durability`: what the stricter durability setting of the
 * local stack costs (faults issue, item 3). The same log-heavy load (log
 * lines are the writer's Redis work: one XADD each, in scripts of a batch)
 * runs through the `all` service on a stack with Redis `appendfsync
 * everysec` and on one with `appendfsync always`, one after the other in
 * the same run, and compares the lines stored per second (from the first
 * request until the last line is readable) and the writer's Redis write
 * time. JetStream's fsync is not configurable on nats-server 2.9 and
 * InfluxDB already fsyncs its WAL on every write (docs/operations.md).
 * Size with BENCH_LINES (default 200,000). Last line:
 * `durability everysec_lines_per_s=<a> always_lines_per_s=<b> always_ratio=<b/a>`.
 */
import http from 'node:http';
import { openBenchEnvironment, progress, round, type BenchService } from './bench-environment.js';
import { heldBackMs } from './scalar-load.js';

const LINES = Number(process.env.BENCH_LINES ?? 200_000);
const PER_REQUEST = 1_000;
const TASKS = 16;
const CONCURRENCY = 4;

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One call; a 429 or 503 with Retry-After (held back, a budget full) is sent again after it, as the SDK does. */
async function call(
  service: BenchService,
  token: string | undefined,
  op: string,
  body: string,
  contentType = 'application/json',
): Promise<any> {
  for (;;) {
    const answer = await callOnce(service, token, op, body, contentType);
    if (!('waitMs' in answer)) return answer.data;
    await new Promise((resolve) => setTimeout(resolve, answer.waitMs));
  }
}

function callOnce(
  service: BenchService,
  token: string | undefined,
  op: string,
  body: string,
  contentType: string,
): Promise<{ data: any } | { waitMs: number }> {
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  };
  headers.authorization = token
    ? `Bearer ${token}`
    : `Basic ${Buffer.from(`${service.credential.access_key}:${service.credential.secret_key}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const request = http.request(`${service.baseUrl}/${op}`, { method: 'POST', agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const wait = heldBackMs(response.statusCode ?? 0, response.headers['retry-after']);
        if (parsed.meta.result_code === 200) resolve({ data: parsed.data });
        else if (wait !== undefined) resolve({ waitMs: wait });
        else reject(new Error(`${op}: ${parsed.meta.result_msg}`));
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Seconds the writer spent in Redis writes so far (its histogram's sum). */
async function redisWriteSeconds(service: BenchService): Promise<number> {
  const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => /^clearml_writer_store_write_seconds_sum\{.*store="redis"/.test(l));
  // Not exported before the first write.
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function run(appendFsync: 'everysec' | 'always'): Promise<{ linesPerSecond: number; redisSeconds: number }> {
  const environment = await openBenchEnvironment({ settings: { redisAppendFsync: appendFsync } });
  try {
    const service = await environment.startService('all');
    const token = (await call(service, undefined, 'auth.login', '{}')).token as string;
    const tasks = Array.from({ length: TASKS }, (_, t) => `dur-${appendFsync}-${t}`);
    const requests: string[] = [];
    /** The newest line of each task: once it is readable, everything before it in its partition is stored. */
    const newest = new Map<string, string>();
    for (let r = 0; r < LINES / PER_REQUEST; r++) {
      const task = tasks[r % TASKS]!;
      const msg = (i: number) => `step ${r * PER_REQUEST + i}: loss 0.${i} lr 3e-4 epoch ${r}`;
      const lines = Array.from({ length: PER_REQUEST }, (_, i) =>
        JSON.stringify({
          type: 'log',
          task,
          level: 'info',
          msg: msg(i),
          timestamp: 1_718_000_000_000 + r * PER_REQUEST + i,
        }),
      );
      requests.push(lines.join('\n'));
      newest.set(task, msg(PER_REQUEST - 1));
    }
    const redisBefore = await redisWriteSeconds(service);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length)
          await call(service, token, 'events.add_batch', requests[next++]!, 'application/json-lines');
      }),
    );
    for (const task of tasks) {
      for (;;) {
        const data = await call(service, token, 'events.get_task_log', JSON.stringify({ task, batch_size: 1 }));
        if (data.events[0]?.msg === newest.get(task)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const redisSeconds = (await redisWriteSeconds(service)) - redisBefore;
    progress(
      `appendfsync ${appendFsync}: ${LINES} lines stored in ${round(seconds)} s (${Math.round(LINES / seconds)} lines/s), writer Redis time ${round(redisSeconds)} s`,
    );
    return { linesPerSecond: LINES / seconds, redisSeconds };
  } finally {
    await environment.close();
  }
}

async function main(): Promise<void> {
  const everysec = await run('everysec');
  const always = await run('always');
  process.stdout.write(
    `durability everysec_lines_per_s=${Math.round(everysec.linesPerSecond)} always_lines_per_s=${Math.round(always.linesPerSecond)} always_ratio=${round(always.linesPerSecond / everysec.linesPerSecond, 3)} redis_seconds_everysec=${round(everysec.redisSeconds)} redis_seconds_always=${round(always.redisSeconds)}\n`,
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
