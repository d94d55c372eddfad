/**
 * CPU time per process from /proc (user + system), so that a benchmark can
 * report what each process spent per event: a figure that does not depend
 * on how busy the machine was, and that adds up across machines.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times: USER_HZ, 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** CPU seconds the process has used so far, or undefined when it is gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 (utime) and 15 (stime) of proc(5); fields[0] is field 3.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The pids of the process's children, grandchildren... (nginx's workers, for instance). */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

export interface CpuSample {
  label: string;
  pid: number;
  seconds: number;
}

/**
 * Measures the CPU each labelled process spends between start() and stop().
 * A process whose pid changed in between (restarted) is reported as such
 * rather than with a figure that would mix two processes. A process's
 * descendants at start() count as its own.
 */
export class CpuMeter {
  private readonly before = new Map<string, { pid: number; pids: number[]; seconds: number }>();

  constructor(
    private readonly pidOf: (label: string) => number | undefined,
    private readonly labels: readonly string[],
  ) {}

  start(): void {
    this.before.clear();
    for (const label of this.labels) {
      const pid = this.pidOf(label);
      if (pid === undefined) continue;
      const pids = [pid, ...descendantsOf(pid)];
      const seconds = totalOf(pids);
      if (seconds !== undefined) this.before.set(label, { pid, pids, seconds });
    }
  }

  stop(): { samples: CpuSample[]; restarted: string[] } {
    const samples: CpuSample[] = [];
    const restarted: string[] = [];
    for (const [label, { pid, pids, seconds }] of this.before) {
      const after = this.pidOf(label) === pid ? totalOf(pids) : undefined;
      if (after === undefined) restarted.push(label);
      else samples.push({ label, pid, seconds: after - seconds });
    }
    return { samples, restarted };
  }
}

function totalOf(pids: number[]): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const seconds = cpuSecondsOf(pid);
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

/** The CPU time of the benchmark's own process (the load client), same units. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/**
 * Nanoseconds the calling thread has run on a CPU so far (/proc/thread-self/schedstat, its first
 * field): the main thread alone, at nanosecond resolution (/proc/<pid>/stat counts 10 ms ticks).
 */
export function threadCpuNanoseconds(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
}

export interface CpuPhase {
  name: string;
  /** Events the phase stored: the divisor. */
  events: number;
  samples: CpuSample[];
  /** The load client's CPU seconds, shown apart (it is not part of the service). */
  clientSeconds: number;
}

const microsPerEvent = (seconds: number, events: number) => Number(((seconds / events) * 1e6).toFixed(2));

/** CPU µs per event of the samples whose label passes `include` (all by default). */
export function cpuPerEvent(phase: CpuPhase, include: (label: string) => boolean = () => true): number {
  return microsPerEvent(
    phase.samples.filter((s) => include(s.label)).reduce((sum, s) => sum + s.seconds, 0),
    phase.events,
  );
}

/**
 * A markdown table of CPU µs per event: one row per process, one per group
 * of processes with a numbered label (ingest-1, ingest-2 → ingest), the
 * servers' total, and the load client; one column per phase.
 */
export function cpuTable(phases: CpuPhase[]): string {
  const labels = phases[0]!.samples.map((s) => s.label);
  const groupOf = (label: string) => label.replace(/-\d+$/, '');
  const groups = [...new Set(labels.map(groupOf))].filter(
    (group) => labels.filter((l) => groupOf(l) === group).length > 1,
  );
  const row = (name: string, cell: (phase: CpuPhase) => number | string) =>
    `| ${name} | ${phases.map(cell).join(' | ')} |`;
  return [
    `| process | ${phases.map((p) => `${p.name} µs/event`).join(' | ')} |`,
    `|---|${phases.map(() => '---:').join('|')}|`,
    ...labels.map((label) => row(label, (p) => cpuPerEvent(p, (l) => l === label))),
    ...groups.map((group) => row(`**${group}** (all)`, (p) => `**${cpuPerEvent(p, (l) => groupOf(l) === group)}**`)),
    row('**servers total**', (p) => `**${cpuPerEvent(p)}**`),
    row('load client (the benchmark)', (p) => microsPerEvent(p.clientSeconds, p.events)),
  ].join('\n');
}

/** The process's resident set size in bytes (VmRSS), or undefined when it is gone. */
export function rssBytesOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples the process's RSS every `everyMs` until stopped; answers the largest seen. */
export function peakRss(pid: number, everyMs = 20): { stop(): number } {
  let peak = rssBytesOf(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytesOf(pid) ?? 0);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytesOf(pid) ?? 0);
    },
  };
}
