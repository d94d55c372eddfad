/**
 * Time to recover: from the end of a fault until the service acknowledges
 * ingest (a one-event add_batch answered 200) and answers a read again
 * (events.get_task_events of the probe's task answered 200), tried every
 * quarter second with short timeouts. The probe's events are on a task of
 * their own, acknowledged in the ledger and audited like the load's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AckLedger } from './ack-ledger.js';
import { loadBatch } from './load-events.js';
import { callOperation } from './service-calls.js';

const TRY_TIMEOUT_MS = 3_000;
const INTERVAL_MS = 250;

export async function measureRecovery(options: {
  ingestUrl: string;
  queryUrl: string;
  token: string;
  task: string;
  ledger: AckLedger;
  /** Epoch ms the fault ended. */
  from: number;
  timeoutMs: number;
}): Promise<number | undefined> {
  const { ledger, task } = options;
  if (!ledger.acked.has(task)) ledger.addTask(task, 0);
  const auth = `Bearer ${options.token}`;
  const deadline = options.from + options.timeoutMs;
  let n = ledger.acked.get(task)!.size;
  const tryUntil = async (attempt: () => Promise<boolean>): Promise<boolean> => {
    while (Date.now() < deadline) {
      if (await attempt().catch(() => false)) return true;
      await sleep(INTERVAL_MS);
    }
    return false;
  };
  const ingested = await tryUntil(async () => {
    // A new event per try: a timed-out try may still be stored, and that is fine for a scalar of its own iteration.
    const batch = loadBatch(task, 1_000_000 + n++, 1);
    const answer = await callOperation(options.ingestUrl, 'events.add_batch', batch.events[0], auth, TRY_TIMEOUT_MS);
    if (answer.status !== 200 || answer.body.data?.added !== 1) return false;
    ledger.ack(task, batch.keys);
    return true;
  });
  if (!ingested) return undefined;
  const read = await tryUntil(
    async () =>
      (await callOperation(options.queryUrl, 'events.get_task_events', { task, batch_size: 1 }, auth, TRY_TIMEOUT_MS))
        .status === 200,
  );
  return read ? (Date.now() - options.from) / 1000 : undefined;
}
