/**
 * "Back after a kill": a supervisor started a new process in place of the
 * one killed (its pid changed), then the new one answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export async function waitRestarted(options: {
  what: string;
  /** The current pid; undefined while nothing runs. */
  pidOf: () => number | undefined;
  killedPid: number;
  timeoutMs: number;
  /** Resolves once the new process answers; gets the time left. */
  answers: (timeoutMs: number) => Promise<void>;
}): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (let pid = options.pidOf(); pid === options.killedPid || pid === undefined; pid = options.pidOf()) {
    if (Date.now() > deadline) throw new Error(`${options.what} was not restarted within ${options.timeoutMs} ms`);
    await sleep(100);
  }
  await options.answers(Math.max(1_000, deadline - Date.now()));
}
