/**
 * What a fuzz run found, grouped into failure classes (same kind, operation,
 * status and message shape), each with its count and smallest example, and
 * the one-line summary the issue asks for.
 */
import type { CaseOutcome } from './case-sender.js';
import type { CrashRecord } from './fuzz-service.js';
import type { PartitionState, WriterCounters } from './fuzz-checks.js';
import type { Cause } from './service-log.js';
import type { WitnessEvent } from './witness-ledger.js';

export interface Finding {
  index: string;
  cls: string;
  op: string;
  what: '5xx' | 'hang' | 'dropped' | 'not-envelope';
  outcome: CaseOutcome;
  /** For a 5xx: what the service logged for the call. */
  cause?: Cause;
}

export interface FuzzReport {
  requests: number;
  status5xx: number;
  hangs: number;
  crashes: number;
  ackedUnreadable: number;
  partitionsStalled: number;
  isolationViolations: string[];
  /** Error answers that are not ClearML envelopes (informative; not part of the exit status). */
  notEnvelope: number;
  /** Requests lost while the service was down (attributed to the crash, not counted as hangs). */
  lostToCrash: number;
  findings: Finding[];
  /** Well-formed requests not (wholly) acknowledged, with their answers. */
  wellFormedRefused: string[];
  /** Answers that came later than the slow threshold (informative). */
  slow: string[];
  /** Requests the fuzzer could not build (its own bugs; none expected). */
  fuzzerErrors: string[];
  crashRecords: CrashRecord[];
  stalled: PartitionState[];
  stalledWitnesses: string[];
  retriesGrowing: boolean;
  counters?: WriterCounters;
  unreadable: Array<{ event: WitnessEvent; seen: number }>;
  readErrors: string[];
  setupProblems: string[];
  wellFormed: { requests: number; events: number; acked: number };
  coverage: Record<string, number>;
  unhinted: string[];
  stoppedEarly?: string;
  elapsedMs: number;
}

export function summaryLine(r: FuzzReport): string {
  return `fuzz requests=${r.requests} status_5xx=${r.status5xx} hangs=${r.hangs} crashes=${r.crashes} acked_unreadable=${r.ackedUnreadable} partitions_stalled=${r.partitionsStalled}`;
}

export function passed(r: FuzzReport): boolean {
  return (
    r.status5xx + r.hangs + r.crashes + r.ackedUnreadable + r.partitionsStalled === 0 &&
    r.isolationViolations.length === 0
  );
}

/** The message shape of an answer: ids, numbers and quoted values blurred so that one class groups together. */
function shape(answer: string): string {
  const msg = /"result_msg":"((?:[^"\\]|\\.)*)"/.exec(answer)?.[1] ?? answer;
  return msg
    .replace(/[0-9a-f]{32}/g, '<id>')
    .replace(/\d+/g, 'N')
    .replace(/=\S+/g, '=…')
    .slice(0, 90);
}

/** The class of a finding: its cause when the service logged one, else its kind, status and message shape. */
function classKey(f: Finding): string {
  // The file, not the line: a stack overflow surfaces at any line of the recursion.
  if (f.what === '5xx' && f.cause)
    return `5xx ${f.outcome.status} ${f.cause.error}${f.cause.where ? ` in ${f.cause.where.replace(/:\d+$/, '')}` : ''}`;
  if (f.what === 'hang' || f.what === 'dropped')
    return `${f.what} ${f.op} ${f.what === 'dropped' ? shape(f.outcome.answer) : ''}`;
  return `${f.what} ${f.outcome.status} ${shape(f.outcome.answer)}`;
}

export interface FindingGroup {
  key: string;
  count: number;
  example: Finding;
  classes: string[];
  ops: string[];
}

export function groupFindings(findings: Finding[]): FindingGroup[] {
  const groups = new Map<
    string,
    { key: string; count: number; example: Finding; classes: Set<string>; ops: Set<string> }
  >();
  for (const f of findings) {
    const key = classKey(f);
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, { key, count: 1, example: f, classes: new Set([f.cls]), ops: new Set([f.op]) });
    else {
      group.count++;
      group.classes.add(f.cls);
      group.ops.add(f.op);
      if (f.outcome.request.length < group.example.outcome.request.length) group.example = f;
    }
  }
  return [...groups.values()]
    .sort((a, b) => b.count - a.count)
    .map((g) => ({ ...g, classes: [...g.classes], ops: [...g.ops].sort() }));
}

/** Everything but the summary line, which the caller prints last (after its own clean-up output). */
export function printReport(r: FuzzReport, print: (line: string) => void, maxGroups = 40): void {
  print(`--- fuzz report (${Math.round(r.elapsedMs / 1000)} s) ---`);
  if (r.stoppedEarly) print(`stopped early: ${r.stoppedEarly}`);
  print(
    `well-formed: ${r.wellFormed.requests} requests, ${r.wellFormed.events} events, ${r.wellFormed.acked} acknowledged`,
  );
  if (r.wellFormedRefused.length > 0)
    print(
      `well-formed requests not acknowledged: ${r.wellFormedRefused.length}, e.g.\n    ${r.wellFormedRefused.slice(0, 3).join('\n    ')}`,
    );
  print(
    `coverage: ${Object.entries(r.coverage)
      .map(([op, n]) => `${op}=${n}`)
      .join(' ')}`,
  );
  if (r.unhinted.length > 0)
    print(`operations or fields without a hint (fuzzed with values of every kind): ${r.unhinted.join(', ')}`);
  for (const p of r.setupProblems) print(`setup: ${p}`);
  for (const e of r.fuzzerErrors.slice(0, 10)) print(`fuzzer error (request not sent): ${e}`);
  const groups = groupFindings(r.findings);
  if (groups.length > 0) print(`failure classes (${groups.length}):`);
  for (const g of groups.slice(0, maxGroups)) {
    print(`  [${g.count}x] ${g.key}`);
    print(`      operations: ${g.ops.join(', ')}; generators: ${g.classes.join(', ')}`);
    print(`      e.g. #${g.example.index} ${g.example.outcome.request}`);
    print(
      `      -> ${g.example.outcome.answer} (${g.example.outcome.ms} ms)${g.example.cause?.where ? ` [${g.example.cause.where}]` : ''}`,
    );
  }
  if (groups.length > maxGroups) print(`  … ${groups.length - maxGroups} more classes`);
  for (const c of r.crashRecords) {
    print(`crash at ${new Date(c.at).toISOString()}: exit code=${c.code} signal=${c.signal}; last output:`);
    for (const line of c.tail.slice(-12)) print(`    ${line}`);
  }
  if (r.slow.length > 0)
    print(
      `slow answers (after the slow threshold, before the deadline): ${r.slow.length}, e.g. ${r.slow.slice(0, 5).join('; ')}`,
    );
  if (r.lostToCrash > 0) print(`requests lost while the service was down: ${r.lostToCrash}`);
  if (r.notEnvelope > 0)
    print(`error answers that are not a ClearML envelope: ${r.notEnvelope} (see the not-envelope classes above)`);
  for (const p of r.stalled)
    print(
      `partition ${p.partition} not drained: num_pending=${p.pending} num_ack_pending=${p.ackPending}${p.error ? ` (${p.error})` : ''}`,
    );
  if (r.stalledWitnesses.length > 0) print(`witness tasks on stalled partitions: ${r.stalledWitnesses.join(', ')}`);
  if (r.retriesGrowing) print('writer store retries still growing after the run');
  if (r.counters)
    print(`writer: store retries=${r.counters.retries} dead letters=${JSON.stringify(r.counters.deadLetters)}`);
  const byVia = new Map<string, number>();
  for (const u of r.unreadable)
    byVia.set(
      `${u.event.via}/${u.event.type}/seen=${u.seen}`,
      (byVia.get(`${u.event.via}/${u.event.type}/seen=${u.seen}`) ?? 0) + 1,
    );
  if (r.unreadable.length > 0)
    print(`acknowledged but not readable exactly once: ${[...byVia].map(([k, n]) => `${k}:${n}`).join(' ')}`);
  const shown = new Map<string, number>();
  for (const u of r.unreadable) {
    const group = `${u.event.via}/${u.event.type}/seen=${u.seen}`;
    if ((shown.get(group) ?? 0) >= 3) continue;
    shown.set(group, (shown.get(group) ?? 0) + 1);
    print(
      `    e.g. ${u.event.company} ${u.event.task} ${u.event.type}#${u.event.n} via ${u.event.via} seen ${u.seen}x${u.event.request === undefined ? '' : ` (request #${u.event.request})`}`,
    );
  }
  for (const e of r.readErrors.slice(0, 5)) print(`read-back error: ${e}`);
  for (const v of r.isolationViolations.slice(0, 10)) print(`isolation: ${v}`);
  print(`isolation_violations=${r.isolationViolations.length} not_envelope=${r.notEnvelope}`);
}
