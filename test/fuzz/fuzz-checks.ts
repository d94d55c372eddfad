/**
 * The checks after a run, besides the answers themselves: writer partitions
 * drained (JetStream consumer state, and the writer's retry counter standing
 * still), and company isolation (a company reading the other's ids gets
 * 400/101 and never sees its data, also through adversarial variants of
 * the ids; wrong credentials are refused).
 */
import { connect } from 'nats';
import { consumerName, partitionOf, streamName } from '../../shared/events/wire-format.js';
import { apiCall, basic, bearer } from './api-call.js';
import { ID_MUTATIONS, otherCompany, type CompanyKey, type World } from './fuzz-world.js';
import { encodeRequest, sendRaw } from './raw-http.js';

export interface PartitionState {
  partition: number;
  pending: number;
  ackPending: number;
  error?: string;
}

export async function partitionStates(natsUrl: string, prefix: string, partitions: number): Promise<PartitionState[]> {
  const nc = await connect({ servers: natsUrl, name: 'fuzz-checks' });
  try {
    const jsm = await nc.jetstreamManager();
    const out: PartitionState[] = [];
    for (let p = 0; p < partitions; p++) {
      try {
        const info = await jsm.consumers.info(streamName(prefix), consumerName(prefix, p));
        out.push({ partition: p, pending: info.num_pending, ackPending: info.num_ack_pending });
      } catch (error) {
        out.push({ partition: p, pending: -1, ackPending: -1, error: (error as Error).message });
      }
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** Waits until every partition has nothing pending; returns the partitions still busy at the deadline. */
export async function waitForDrain(
  natsUrl: string,
  prefix: string,
  partitions: number,
  deadlineMs: number,
): Promise<PartitionState[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const busy = (await partitionStates(natsUrl, prefix, partitions)).filter(
      (s) => s.pending !== 0 || s.ackPending !== 0,
    );
    if (busy.length === 0 || Date.now() > deadline) return busy;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface WriterCounters {
  retries: number;
  deadLetters: Record<string, number>;
}

/** The writer's store-retry and dead-letter counters from /metrics (undefined when /metrics does not answer). */
export async function writerCounters(port: number): Promise<WriterCounters | undefined> {
  const outcome = await sendRaw(
    port,
    encodeRequest({ method: 'GET', target: '/metrics', headers: [], body: Buffer.alloc(0) }, `127.0.0.1:${port}`),
    10_000,
  );
  if (outcome.kind !== 'answer' || outcome.status !== 200) return undefined;
  const counters: WriterCounters = { retries: 0, deadLetters: {} };
  for (const line of outcome.body.toString('utf8').split('\n')) {
    if (line.startsWith('clearml_writer_store_retries_total'))
      counters.retries += Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('clearml_writer_dead_letters_total')) {
      const reason = /reason="([^"]*)"/.exec(line)?.[1] ?? '?';
      counters.deadLetters[reason] =
        (counters.deadLetters[reason] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return counters;
}

export function witnessPartitions(world: World, partitions: number): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const company of ['a', 'b'] as CompanyKey[]) {
    for (const task of world.companies[company].witnesses) {
      const p = partitionOf('t', task, partitions);
      out.set(p, [...(out.get(p) ?? []), `${company}:${task}`]);
    }
  }
  return out;
}

const READS: Array<(task: string) => [string, Record<string, unknown>]> = [
  (task) => ['events.get_task_events', { task }],
  (task) => ['events.get_task_log', { task }],
  (task) => ['events.get_task_plots', { task }],
  (task) => ['events.get_task_latest_scalar_values', { task }],
  (task) => ['events.get_scalar_metrics_and_variants', { task }],
  (task) => ['events.debug_images', { metrics: [{ task }] }],
];

/**
 * Isolation probes. `full` also reads adversarial variants of the other
 * company's ids (`<id>:lm`, ...) that the caller may have registered itself:
 * those may answer 200, but must never carry the other company's marker.
 */
export async function isolationViolations(
  port: number,
  world: World,
  deadlineMs: number,
  full: boolean,
): Promise<string[]> {
  const violations: string[] = [];
  for (const caller of ['a', 'b'] as CompanyKey[]) {
    const me = world.companies[caller];
    const other = world.companies[otherCompany(caller)];
    const token = bearer(me.token);
    for (const task of other.witnesses.slice(0, full ? undefined : 1)) {
      for (const read of full ? READS : READS.slice(0, 2)) {
        const [op, body] = read(task);
        const answer = await apiCall(port, op, body, token, deadlineMs);
        const sub = answer.json?.meta?.result_subcode;
        if (answer.status === 0) continue; // no answer: counted as a hang or crash elsewhere
        if (answer.status !== 400 || sub !== 101 || answer.text.includes(other.marker))
          violations.push(
            `${caller} read ${other.key}'s ${task} via ${op}: ${answer.status}/${sub} ${answer.text.slice(0, 200)}`,
          );
      }
      if (!full) continue;
      for (const suffix of ID_MUTATIONS.slice(0, 12)) {
        for (const read of READS) {
          const [op, body] = read(task + suffix);
          const answer = await apiCall(port, op, body, token, deadlineMs);
          if (answer.text.includes(other.marker))
            violations.push(
              `${caller} read ${other.key}'s data through ${JSON.stringify(task + suffix)} via ${op}: ${answer.text.slice(0, 200)}`,
            );
        }
      }
    }
    // Wrong credentials must be refused whatever happened to the process before.
    const wrong = await apiCall(
      port,
      'events.get_task_log',
      { task: me.witnesses[0] },
      basic(me.credential.access_key, 'wrong-secret'),
      deadlineMs,
    );
    if (wrong.status !== 0 && wrong.status !== 401)
      violations.push(`wrong secret for ${caller} answered ${wrong.status}: ${wrong.text.slice(0, 200)}`);
    const none = await apiCall(port, 'events.get_task_log', { task: me.witnesses[0] }, [], deadlineMs);
    if (none.status !== 0 && none.status !== 401)
      violations.push(`no credentials answered ${none.status}: ${none.text.slice(0, 200)}`);
  }
  return violations;
}
