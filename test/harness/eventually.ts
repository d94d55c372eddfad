/**
 * The one polling helper of the test kit. The pipeline stores events
 * asynchronously (events become visible shortly after the 200, events.md
 * §2), so tests poll a read until it shows the expected state. At the
 * deadline it throws with the last value seen: a helper that returned
 * silently would let the next assertion fail far from the cause, or not
 * fail at all.
 */

export interface EventuallyOptions {
  /** How long to keep trying (default 15 s; the writer stores within about a second). */
  timeoutMs?: number;
  /** Pause between two reads (default 100 ms). */
  everyMs?: number;
  /** What is awaited, for the error message. */
  what?: string;
  /** Treat a read that throws as a value not yet good (processes starting, a store stalled); its error is the last value. */
  retryErrors?: boolean;
}

export class EventuallyTimeout extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly last: unknown,
  ) {
    super(`${what} not reached within ${timeoutMs} ms; last value: ${describe(last)}`);
    this.name = 'EventuallyTimeout';
  }
}

/**
 * Repeats `read` until `done` holds for its result (by default: until the
 * result is truthy) and answers that result; throws EventuallyTimeout with
 * the last result after `timeoutMs` (a number is taken as `timeoutMs`).
 */
export async function eventually<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean = (value) => Boolean(value),
  options: EventuallyOptions | number = {},
): Promise<T> {
  const {
    timeoutMs = 15_000,
    everyMs = 100,
    what = 'condition',
    retryErrors = false,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: unknown;
    try {
      const value = await read();
      if (done(value)) return value;
      last = value;
    } catch (error) {
      if (!retryErrors) throw error;
      last = error;
    }
    if (Date.now() > deadline) throw new EventuallyTimeout(what, timeoutMs, last);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return (JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? String(value)).slice(
      0,
      2000,
    );
  } catch {
    return String(value).slice(0, 2000);
  }
}
