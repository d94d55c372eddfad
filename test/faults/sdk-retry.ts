/**
 * How the load's clients retry, the way the ClearML SDK does: a request
 * that gets no answer (connection refused or reset, or nothing within the
 * timeout), a 5xx or a 429 is sent again, the same bytes, after a back-off
 * (Retry-After when the answer has one), until it is answered 200. Any
 * other answer is final: well-formed events never deserve a 4xx.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestHistory, type ClientTally } from './ack-ledger.js';

export interface RetryPolicy {
  /** No answer within this long counts as no answer. */
  timeoutMs: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const SDK_RETRY: RetryPolicy = { timeoutMs: 15_000, firstDelayMs: 500, maxDelayMs: 8_000 };

/** One attempt's outcome, whatever the transport. */
export type Attempt =
  | { kind: 'answered'; code: number; added?: number; message?: string; retryAfterSec?: number }
  | { kind: 'no-answer'; reason: string };

export type Verdict = 'acked' | 'retry' | 'rejected';

/**
 * Classifies an attempt for `expected` events (undefined: a read, which any
 * 200 answers), counting it in the tally; `sentAt` (epoch ms, now when not
 * known) starts the client's run of failures when it is the first.
 */
export function judge(
  attempt: Attempt,
  expected: number | undefined,
  tally: ClientTally,
  where: string,
  sentAt = Date.now(),
): Verdict {
  const verdict = classify(attempt, expected, tally, where);
  if (verdict === 'retry') tally.failed(where, sentAt);
  else if (verdict === 'acked') tally.succeeded(where);
  return verdict;
}

function classify(attempt: Attempt, expected: number | undefined, ledger: ClientTally, where: string): Verdict {
  if (attempt.kind === 'no-answer') {
    ledger.note('noAnswer', `${where}: ${attempt.reason}`);
    return 'retry';
  }
  if (attempt.code === 200 && (expected === undefined || attempt.added === expected)) return 'acked';
  if (attempt.code === 200) {
    ledger.note('rejected', `${where}: 200 with added=${attempt.added} of ${expected}: ${attempt.message ?? ''}`);
    return 'rejected';
  }
  if (attempt.code >= 500) {
    ledger.note('serverErrors', `${where}: ${attempt.code} ${attempt.message ?? ''}`);
    return 'retry';
  }
  if (attempt.code === 429) {
    ledger.note('tooMany', `${where}: 429 ${attempt.message ?? ''}`);
    return 'retry';
  }
  ledger.note('rejected', `${where}: ${attempt.code} ${attempt.message ?? ''}`);
  return 'rejected';
}

export function describeAttempt(attempt: Attempt): string {
  if (attempt.kind === 'no-answer') return `no answer (${attempt.reason})`;
  return attempt.code === 200 ? `200 added=${attempt.added}` : `${attempt.code} ${attempt.message ?? ''}`.trim();
}

/** The wait before re-send number `retry` (1, 2, ...): doubling, with jitter, capped; Retry-After wins. */
export function backoffMs(retry: number, policy: RetryPolicy, retryAfterSec?: number): number {
  if (retryAfterSec !== undefined && Number.isFinite(retryAfterSec) && retryAfterSec >= 0)
    return Math.min(policy.maxDelayMs, retryAfterSec * 1000);
  const base = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (retry - 1));
  return base * (0.75 + Math.random() * 0.5);
}

/**
 * Sends one request until a final verdict or the deadline. `acked` is
 * false when it was rejected or given up (counted as abandoned).
 */
export async function sendUntilFinal(options: {
  send: () => Promise<Attempt>;
  /** Events the request carries; undefined for a read. */
  expected: number | undefined;
  ledger: ClientTally;
  where: string;
  policy: RetryPolicy;
  /** Epoch ms after which a request still unanswered is given up. */
  giveUpAt: () => number;
}): Promise<{ acked: boolean; history: RequestHistory }> {
  const { ledger, policy } = options;
  const history = new RequestHistory();
  ledger.counters.requests++;
  for (let retry = 1; ; retry++) {
    history.add(retry === 1 ? 'sent' : 're-sent');
    const sentAt = Date.now();
    const attempt = await options.send();
    history.add(describeAttempt(attempt));
    const verdict = judge(attempt, options.expected, ledger, options.where, sentAt);
    if (verdict !== 'retry') return { acked: verdict === 'acked', history };
    const wait = backoffMs(retry, policy, attempt.kind === 'answered' ? attempt.retryAfterSec : undefined);
    if (Date.now() + wait > options.giveUpAt()) {
      ledger.note('abandoned', `${options.where}: no 200 before the scenario's deadline`);
      history.add('abandoned');
      return { acked: false, history };
    }
    await sleep(wait);
  }
}
