/**
 * Compares, per event, what was acknowledged with what is readable through
 * the query API: every task's events are read with events.get_task_events
 * (all types, scrolled to the end) and counted by key. lost = acknowledged
 * and not readable (or readable with other content); duplicated = copies
 * beyond the first of any event (acknowledged or not).
 */
import type { AckLedger } from './ack-ledger.js';
import { keyOfStored } from './load-events.js';
import { callOperation } from './service-calls.js';

export interface AuditResult {
  acked: number;
  stored: number;
  lost: number;
  duplicated: number;
  /** Read back but never acknowledged (a request whose answer was lost): not an error. */
  storedUnacked: number;
  lostExamples: string[];
  /** One example per task with duplicates, with the history of its request. */
  duplicateExamples: string[];
  /** `<task>: <copies>` for every task with duplicates. */
  duplicatesByTask: string[];
  /** Read failures: the audit is then incomplete and the scenario counts as unrecovered. */
  readErrors: string[];
}

const PAGE = 10_000;
const EXAMPLES = 5;

export async function auditEvents(
  queryUrl: string,
  tokens: readonly string[],
  ledger: AckLedger,
): Promise<AuditResult> {
  const result: AuditResult = {
    acked: 0,
    stored: 0,
    lost: 0,
    duplicated: 0,
    storedUnacked: 0,
    lostExamples: [],
    duplicateExamples: [],
    duplicatesByTask: [],
    readErrors: [],
  };
  for (const [task, acked] of ledger.acked) {
    const read = await readTask(queryUrl, `Bearer ${tokens[ledger.companyOf.get(task)!]}`, task);
    if ('error' in read) {
      result.readErrors.push(`${task}: ${read.error}`);
      continue;
    }
    const { counts, wrong, receivedAt } = read;
    result.acked += acked.size;
    for (const key of acked) {
      if ((counts.get(key) ?? 0) > 0) result.stored++;
      else {
        result.lost++;
        if (result.lostExamples.length < EXAMPLES)
          result.lostExamples.push(`${task} ${wrong.get(key) ?? key} (request: ${ledger.historyOf(task, key)})`);
      }
    }
    let duplicatedHere = 0;
    let exampleHere = false;
    for (const [key, count] of counts) {
      if (!acked.has(key)) result.storedUnacked++;
      if (count > 1) {
        result.duplicated += count - 1;
        duplicatedHere += count - 1;
        if (!exampleHere) {
          exampleHere = true;
          result.duplicateExamples.push(
            `${key.includes(task) ? '' : `${task} `}${key} ×${count}${acked.has(key) ? '' : ' (never acknowledged)'} (copies received by ingest at ${receivedAt
              .get(key)!
              .map((at) => relative(at, ledger.faultAt))
              .join(', ')}; request: ${ledger.historyOf(task, key)})`,
          );
        }
      }
    }
    if (duplicatedHere > 0) result.duplicatesByTask.push(`${task}: ${duplicatedHere}`);
  }
  return result;
}

type TaskRead =
  { counts: Map<string, number>; wrong: Map<string, string>; receivedAt: Map<string, number[]> } | { error: string };

const relative = (at: number, origin: number) => `${at < origin ? '' : '+'}${((at - origin) / 1000).toFixed(2)}s`;

async function readTask(queryUrl: string, auth: string, task: string): Promise<TaskRead> {
  const counts = new Map<string, number>();
  const wrong = new Map<string, string>();
  /** `@timestamp` (the time ingest received the event) of every copy: tells which attempt of a request was stored. */
  const receivedAt = new Map<string, number[]>();
  let scrollId: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const answer = await readPage(queryUrl, auth, {
      task,
      batch_size: PAGE,
      ...(scrollId ? { scroll_id: scrollId } : {}),
    });
    if ('error' in answer) return answer;
    const events = answer.events;
    if (events.length === 0) return { counts, wrong, receivedAt };
    for (const event of events) {
      const identified = keyOfStored(task, event);
      if ('key' in identified) {
        counts.set(identified.key, (counts.get(identified.key) ?? 0) + 1);
        receivedAt.set(identified.key, [
          ...(receivedAt.get(identified.key) ?? []),
          Date.parse(String(event['@timestamp'])),
        ]);
      } else wrong.set(identified.wrong.split(' ')[0]!, identified.wrong);
    }
    scrollId = answer.scrollId;
  }
  return { error: 'more than 10,000 pages' };
}

async function readPage(
  queryUrl: string,
  auth: string,
  body: Record<string, unknown>,
): Promise<{ events: Record<string, unknown>[]; scrollId: string } | { error: string }> {
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const answer = await callOperation(queryUrl, 'events.get_task_events', body, auth, 60_000);
      if (answer.status === 200) return { events: answer.body.data.events, scrollId: answer.body.data.scroll_id };
      last = `${answer.status} ${answer.body.meta?.result_msg ?? ''}`;
    } catch (error) {
      last = (error as Error).message;
    }
  }
  return { error: `events.get_task_events failed 3 times: ${last}` };
}
