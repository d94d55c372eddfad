/**
 * Polls a server until it answers, gives up at a deadline, and notices when
 * the process we started died instead (so we do not wait out the timeout).
 */
import { influxPing, natsInfo, redisPing } from './readiness-probes.js';
import type { ExitInfo } from './server-process.js';
import type { StackServer } from './stack-servers.js';

export type ReadyOutcome =
  { kind: 'ready' } | { kind: 'exited'; exit: ExitInfo } | { kind: 'timeout'; lastError: string };

const POLL_INTERVAL_MS = 100;
const PROBE_TIMEOUT_MS = 2_000;

export function probeFor(server: StackServer, startedByUs: boolean): (url: string, timeoutMs: number) => Promise<void> {
  switch (server) {
    case 'nats':
      return async (url, timeoutMs) => {
        const info = await natsInfo(url, timeoutMs);
        // Ours must have JetStream; an existing server is the user's choice.
        if (startedByUs && info.jetstream !== true) throw new Error('NATS answered without JetStream');
      };
    case 'influxdb':
      return influxPing;
    case 'redis':
      return redisPing;
  }
}

export async function waitUntilReady(options: {
  url: string;
  probe: (url: string, timeoutMs: number) => Promise<void>;
  timeoutMs: number;
  exited?: Promise<ExitInfo>;
}): Promise<ReadyOutcome> {
  const deadline = Date.now() + options.timeoutMs;
  let exit: ExitInfo | undefined;
  void options.exited?.then((info) => {
    exit = info;
  });
  let lastError = 'no attempt finished';
  for (;;) {
    if (exit) return { kind: 'exited', exit };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { kind: 'timeout', lastError };
    try {
      await options.probe(options.url, Math.min(PROBE_TIMEOUT_MS, remaining));
      return { kind: 'ready' };
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await pause(POLL_INTERVAL_MS, options.exited);
  }
}

function pause(ms: number, interruptedBy?: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const interrupted = interruptedBy?.then(() => undefined) ?? elapsed;
  return Promise.race([elapsed, interrupted]).finally(() => clearTimeout(timer));
}
