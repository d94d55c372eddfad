/**
 * The cause of a 5xx, from the service's own log: every HTTP answer carries
 * its call id (`meta.id`), and the service logs a failed call with that id
 * and the error (the child runs with --enable-source-maps, so the stack
 * names TypeScript files and lines). One cause is one failure class, however
 * many operations it shows up in.
 */
import { readFileSync } from 'node:fs';

export interface Cause {
  /** `<error type>: <message>` (shortened). */
  error: string;
  /** The first stack frame in the service's own code, as `path/file.ts:line`. */
  where?: string;
}

const OWN_FRAME = /\(?(?:file:\/\/)?[^\s()]*?\/((?:shared|ingest|query|deploy)\/[^\s():]+\.ts):(\d+):\d+\)?/;

function firstOwnFrame(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    const match = OWN_FRAME.exec(line);
    if (match) return `${match[1]}:${match[2]}`;
  }
  return undefined;
}

/** Call id → cause, for every logged failure that names a call. */
export function causesByCall(logFile: string): Map<string, Cause> {
  const out = new Map<string, Cause>();
  let text: string;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"call"')) continue;
    let entry: { call?: string; msg?: string; err?: { type?: string; message?: string; stack?: string } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.call === undefined || entry.err === undefined) continue;
    const message = (entry.err.message ?? entry.msg ?? '').replace(/\s+/g, ' ').slice(0, 120);
    out.set(entry.call, {
      error: `${entry.err.type ?? 'Error'}: ${message}`,
      where: firstOwnFrame(entry.err.stack ?? ''),
    });
  }
  return out;
}

/** The call id of an enveloped answer (its `meta.id`). */
export function callIdOf(answer: string): string | undefined {
  return /"meta":\{"id":"([0-9a-f]{32})"/.exec(answer)?.[1];
}
