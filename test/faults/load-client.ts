/**
 * What every load client shares: its options, and the SDK's way of sending
 * (one request at a time: the next one only after the previous one's 200).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AckLedger } from './ack-ledger.js';
import { loadBatch, type LoadBatch } from './load-events.js';
import { sendUntilFinal, type Attempt, type RetryPolicy } from './sdk-retry.js';

export interface LoadClientOptions {
  name: string;
  task: string;
  token: string;
  ledger: AckLedger;
  policy: RetryPolicy;
  batchEvents: number;
  /** Pause between a 200 and the next request. */
  intervalMs: number;
  /** Whether to start another request. */
  producing: () => boolean;
  giveUpAt: () => number;
}

/** Sends batch after batch while producing; `attemptOf(batch)` makes one attempt, the same bytes each time. */
export async function sendBatchesInTurn(
  options: LoadClientOptions,
  attemptOf: (batch: LoadBatch) => () => Promise<Attempt>,
): Promise<void> {
  for (let n = 0; options.producing(); n += options.batchEvents) {
    const batch = loadBatch(options.task, n, options.batchEvents);
    const { acked, history } = await sendUntilFinal({
      send: attemptOf(batch),
      expected: batch.keys.length,
      ledger: options.ledger,
      where: options.name,
      policy: options.policy,
      giveUpAt: options.giveUpAt,
    });
    options.ledger.recordRequest(batch.task, batch.keys, history);
    if (acked) options.ledger.ack(batch.task, batch.keys);
    await sleep(options.intervalMs);
  }
}
