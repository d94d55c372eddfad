/**
 * A deadline on every command of a node-redis client, and a breaker for a
 * Redis that stopped answering.
 *
 * node-redis's own `commandOptions.timeout` (and abortSignal) only covers a
 * command until it is written to the socket: a Redis that is alive at the
 * TCP level but does not answer (SIGSTOP, a stuck host, a long script) keeps
 * every written command waiting forever. Its `socketTimeout` does not help
 * under load either: every write counts as socket activity, so the timer
 * never fires while requests keep coming. Measured on node-redis 5.12 against
 * a SIGSTOPped redis-server (docs/configuration.md).
 *
 * So each command (single, MULTI, pipeline) is raced against the timeout
 * here. The first command that times out opens the breaker: later commands
 * fail at once instead of piling up in a socket nobody reads, which also
 * lets the socket fall idle so that `socketTimeout` can finally drop it. The
 * breaker closes as soon as any command settles by itself (Redis answered,
 * or the connection failed and node-redis is reconnecting) or the client is
 * ready again. (node-redis's reconnection handshake does not pass through
 * here, so an open breaker never blocks its own recovery.) A timed-out
 * command may still run when Redis resumes: writes through this client must
 * be safe to repeat, as the writer's are.
 *
 * The three entry points are node-redis internals; start-up fails if an
 * upgrade renames them, rather than silently losing the deadline.
 */
import { UNTIMED, type StoreCalls } from './store-calls.js';
import { StoreUnavailableError } from './store-errors.js';

const ENTRY_POINTS = ['sendCommand', '_executeMulti', '_executePipeline'] as const;
/** MULTI and pipelines bypass `disableOfflineQueue`: refused here while the client is not ready. */
const QUEUES_WHEN_OFFLINE = new Set<string>(['_executeMulti', '_executePipeline']);

type Entry = (this: unknown, ...args: unknown[]) => Promise<unknown>;

export interface GuardedClient {
  readonly isReady: boolean;
  on(event: 'ready', listener: () => void): unknown;
}

/** The operation a call is recorded under: the command's name, or MULTI / PIPELINE. */
const COMMAND_NAME = /^[A-Za-z][A-Za-z._-]{0,31}$/;
function operationOf(entry: (typeof ENTRY_POINTS)[number], args: unknown[]): string {
  if (entry === '_executeMulti') return 'MULTI';
  if (entry === '_executePipeline') return 'PIPELINE';
  const name = Array.isArray(args[0]) ? String(args[0][0]) : '';
  return COMMAND_NAME.test(name) ? name.toUpperCase() : 'OTHER';
}

export function guardCommands(client: GuardedClient, timeoutMs: number, calls: StoreCalls = UNTIMED): void {
  let stalled = false;
  // A fresh connection answers again, whatever happened to the commands of the old one.
  client.on('ready', () => (stalled = false));
  // createClient hands out Object.create(client): commands run on the client underneath (`_self`), so the guard goes there.
  const target = ((client as unknown as { _self?: object })._self ?? client) as Record<string, unknown>;
  for (const name of ENTRY_POINTS) {
    const original = target[name];
    if (typeof original !== 'function')
      throw new Error(
        `node-redis has no ${name}: the Redis command deadline cannot be installed (check the redis package version)`,
      );
    const entry = original as Entry;
    target[name] = function timed(this: unknown, ...args: unknown[]): Promise<unknown> {
      return calls.time('redis', operationOf(name, args), () => guarded.apply(this, args));
    };
    const guarded = function (this: unknown, ...args: unknown[]): Promise<unknown> {
      if (stalled)
        return Promise.reject(new StoreUnavailableError('redis', `Redis has not answered for ${timeoutMs} ms`));
      if (QUEUES_WHEN_OFFLINE.has(name) && !client.isReady)
        return Promise.reject(new StoreUnavailableError('redis', 'Redis is not connected'));
      const sent = entry.apply(this, args);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          stalled = true;
          reject(
            new StoreUnavailableError(
              'redis',
              `Redis did not answer within ${timeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`,
            ),
          );
        }, timeoutMs);
        sent.then(
          (value) => {
            clearTimeout(timer);
            stalled = false;
            resolve(value);
          },
          (error: unknown) => {
            clearTimeout(timer);
            stalled = false;
            reject(error);
          },
        );
      });
    };
  }
}
