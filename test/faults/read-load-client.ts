/**
 * A read client of the fault load, as the web UI and the SDK read: one
 * JSON POST at a time to the query API (through the proxy in the cluster),
 * on a task its company is writing, retried like the SDK (sdk-retry.ts)
 * until it is answered 200. It counts in the ledger's read tally: a read
 * acknowledges no event, so what matters is how often and how long reads
 * failed while a process was down.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AckLedger } from './ack-ledger.js';
import { postOnce } from './http-load-client.js';
import { sendUntilFinal, type RetryPolicy } from './sdk-retry.js';

/** The reads it rotates through: a scroll of events, the scalar charts, the console log. */
const READS: ReadonlyArray<[operation: string, body: (task: string) => Record<string, unknown>]> = [
  ['events.get_task_events', (task) => ({ task, batch_size: 50 })],
  ['events.scalar_metrics_iter_histogram', (task) => ({ task })],
  ['events.get_task_log', (task) => ({ task, batch_size: 50 })],
];

export interface ReadClientOptions {
  name: string;
  /** A task the load writes: read once it has its first acknowledged events (before, it does not exist). */
  task: string;
  token: string;
  ledger: AckLedger;
  policy: RetryPolicy;
  intervalMs: number;
  producing: () => boolean;
  giveUpAt: () => number;
}

export async function runReadClient(queryUrl: string, options: ReadClientOptions): Promise<void> {
  const { ledger, task } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    while (options.producing() && (ledger.acked.get(task)?.size ?? 0) === 0) await sleep(options.intervalMs);
    for (let n = 0; options.producing(); n++) {
      const [operation, body] = READS[n % READS.length]!;
      const text = JSON.stringify(body(task));
      const headers = {
        authorization: `Bearer ${options.token}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
      };
      await sendUntilFinal({
        send: () => postOnce(`${queryUrl}/v2.23/${operation}`, agent, headers, text, options.policy.timeoutMs),
        expected: undefined,
        ledger: ledger.reads,
        where: options.name,
        policy: options.policy,
        giveUpAt: options.giveUpAt,
      });
      await sleep(options.intervalMs);
    }
  } finally {
    agent.destroy();
  }
}
