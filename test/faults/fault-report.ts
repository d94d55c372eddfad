/**
 * The bench's report: one table row per scenario, the notes that explain
 * nonzero cells, and the final line
 * `<bench> scenarios=<n> acked=<n> lost=<n> duplicated=<n> unrecovered=<n>`
 * (`faults`, or `faults-cluster` for the cluster's scenarios).
 */
import type { ScenarioRow } from './scenario-runner.js';

const COLUMNS: Array<[string, (row: ScenarioRow) => string]> = [
  ['scenario', (r) => r.scenario],
  ['acked', (r) => String(r.acked)],
  ['stored', (r) => String(r.stored)],
  ['lost', (r) => String(r.lost)],
  ['duplicated', (r) => String(r.duplicated)],
  ['5xx', (r) => String(r.serverErrors)],
  ['429', (r) => String(r.tooMany)],
  ['no answer', (r) => String(r.noAnswer)],
  ['4xx', (r) => String(r.rejected)],
  ['failing for', (r) => seconds(r.failingSeconds)],
  ['reads failed', (r) => `${r.readFailures}/${r.reads}`],
  ['recovered in', (r) => seconds(r.recoverSeconds)],
  ['back in', (r) => seconds(r.backSeconds)],
  ['drained', (r) => (r.drained ? 'yes' : 'NO')],
  ['took', (r) => `${Math.round(r.seconds)} s`],
];

function seconds(value: number | undefined): string {
  return value === undefined ? 'never' : `${value.toFixed(1)} s`;
}

/** The table as Markdown (it goes into documents as it is). */
export function formatTable(rows: readonly ScenarioRow[]): string {
  const cells = [COLUMNS.map(([name]) => name), ...rows.map((row) => COLUMNS.map(([, value]) => value(row)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) =>
    `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n');
}

export function formatNotes(rows: readonly ScenarioRow[]): string {
  return rows
    .filter((row) => row.notes.length > 0)
    .map((row) => [`${row.scenario}:`, ...row.notes.map((note) => `  - ${note}`)].join('\n'))
    .join('\n');
}

export interface Totals {
  scenarios: number;
  acked: number;
  lost: number;
  duplicated: number;
  unrecovered: number;
  rejected: number;
}

export function totalsOf(rows: readonly ScenarioRow[]): Totals {
  const sum = (pick: (row: ScenarioRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    scenarios: rows.length,
    acked: sum((r) => r.acked),
    lost: sum((r) => r.lost),
    duplicated: sum((r) => r.duplicated),
    unrecovered: sum((r) => (r.unrecovered ? 1 : 0)),
    rejected: sum((r) => r.rejected),
  };
}

export function finalLine(totals: Totals, bench = 'faults'): string {
  return `${bench} scenarios=${totals.scenarios} acked=${totals.acked} lost=${totals.lost} duplicated=${totals.duplicated} unrecovered=${totals.unrecovered}`;
}
