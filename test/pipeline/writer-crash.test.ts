// kill -9 of a writer process in the middle of a stream: its successor stores everything exactly once (points by identity, logs by id).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { logRecord, PipelineClient, scalarRecord } from './writer-fixtures.js';
import { eventually } from '../harness/eventually.js';

const MAIN = path.resolve('dist/shared/launcher/main.js');
const TASKS = 8;
const POINT_MESSAGES = 400; // × 500 points = 200k
const POINTS_PER_MESSAGE = 500;
const LOG_MESSAGES = 200; // × 100 lines = 20k
const LINES_PER_MESSAGE = 100;

let h: Harness;
let c: PipelineClient;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Only for its isolated settings: the writers under test are child processes.
  h = await startHarness({ target: 'writer', modules: { writer: () => ({}) } });
  c = await PipelineClient.open(h.config);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await c?.close();
  await h?.stop();
});

/** Starts `main.js writer` and resolves once it logged "ready". */
const outputs = new Map<ChildProcess, () => string>();

async function startWriter(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, 'writer'], {
    env: { ...process.env, ...h.env, API_PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  outputs.set(child, () => output);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"ready"')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`writer exited (${code}) before ready:\n${output}`)));
  });
  return child;
}

describe('writer killed with SIGKILL mid-stream', () => {
  it('loses and duplicates nothing', { timeout: 120_000 }, async () => {
    const tasks = Array.from({ length: TASKS }, () => unique('t'));
    const messages: Array<() => Promise<number>> = [];
    for (let m = 0; m < POINT_MESSAGES; m++) {
      const task = tasks[m % TASKS]!;
      const base = Math.floor(m / TASKS) * POINTS_PER_MESSAGE;
      const records: string[] = [];
      for (let i = 0; i < POINTS_PER_MESSAGE; i++)
        records.push(scalarRecord(task, 'loss', 'v', base + i, (base + i) * 0.5));
      messages.push(() => c.publish(task, records));
      if (m % 2 === 0) {
        const l = m / 2;
        const logTask = tasks[l % TASKS]!;
        const lines: string[] = [];
        for (let i = 0; i < LINES_PER_MESSAGE; i++)
          lines.push(
            logRecord(logTask, 1_000_000 + ((l * 37 + i * 101) % 5000), `${logTask}#${l * LINES_PER_MESSAGE + i}`),
          );
        messages.push(() => c.publish(logTask, lines));
      }
    }
    const publishRange = async (from: number, to: number) => {
      for (let i = from; i < to; i += 16)
        await Promise.all(messages.slice(i, Math.min(to, i + 16)).map((publish) => publish()));
    };

    const first = await startWriter();
    const publishing = publishRange(0, messages.length);
    // Kill while it is busy: part of the stream stored, part held unacknowledged, part not yet pulled.
    await eventually(async () => (await c.count('scalar', tasks[0]!)) > 0, undefined, {
      timeoutMs: 30_000,
      everyMs: 20,
    });
    const atKill = await c.jsm.streams.info(`${h.config.NATS_STREAM_PREFIX}_events`);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    await publishing;
    const second = await startWriter();
    await c.drained(90_000);
    // The scenario did what it is meant to: work was left, and its successor replayed unacknowledged messages.
    expect(atKill.state.messages).toBeGreaterThan(0);
    expect(outputs.get(second)!()).toContain('taken over with unacknowledged messages');

    const perTask = (POINT_MESSAGES / TASKS) * POINTS_PER_MESSAGE;
    for (const task of tasks) expect(await c.count('scalar', task)).toBe(perTask);
    const sample = await c.points('scalar', tasks[3]!, 'AND time >= 12340 AND time < 12345');
    expect(sample.map((r) => [r.time, r.y])).toEqual([12340, 12341, 12342, 12343, 12344].map((i) => [i, i * 0.5]));

    let lines = 0;
    for (const task of tasks) {
      const entries = await c.logEntries(task);
      const ids = new Set(entries.map((e) => e.id));
      expect(ids.size).toBe(entries.length);
      const msgs = new Set(entries.map((e) => e.event.msg));
      expect(msgs.size).toBe(entries.length);
      lines += entries.length;
    }
    expect(lines).toBe(LOG_MESSAGES * LINES_PER_MESSAGE);

    second.kill('SIGTERM');
    expect(await new Promise((resolve) => second.once('exit', (code) => resolve(code)))).toBe(0);
  });
});
