/**
 * Deletions go through the event stream (events.md §2 "Deletions", §6.3,
 * §9): a ControlRecord published to the entity's partition is run by the
 * writer after every event published before it, so events acknowledged
 * but not yet stored are deleted too. The writer answers `{"deleted": n}`
 * on the reply subject (subscribed to before publishing) and keeps it in
 * Redis for an hour, which covers a reply lost to a reconnect.
 */
import { randomUUID } from 'node:crypto';
import { createInbox, headers as natsHeaders, type NatsConnection } from 'nats';
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { ensureEventStreams, eventStreamSettings } from '../../../shared/events/event-streams.js';
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import {
  HEADER_KIND,
  HEADER_REPLY,
  HEADER_VERSION,
  KIND_CONTROL,
  partitionOf,
  partitionSubject,
  WIRE_VERSION,
  type ControlRecord,
} from '../../../shared/events/wire-format.js';
import type { QueryDeps } from '../../query-deps.js';

/** How long a deletion may wait for the writer (it runs after the partition's backlog). */
export const CONTROL_TIMEOUT_MS = 60_000;
const RESULT_POLL_MS = 1_000;
/** Header naming the subject the writer answers on (ingest/writer/control-runner.ts). */

export interface ControlResult {
  deleted: number;
}

/** A fresh id for a control record. */
export const controlId = (): string => randomUUID();

/** Key of a control request's result, written by the writer. */

const streamsReady = new WeakMap<NatsConnection, Promise<void>>();

/**
 * Publishes the record and waits for the writer's result. A stream that
 * refuses the record, or no answer within the timeout, is the transient
 * 503 `Events could not be persisted, retry later (...)`: the request can be
 * repeated safely (a second deletion finds nothing more to delete).
 */
export async function sendControl(
  deps: QueryDeps,
  record: ControlRecord,
  options: { timeoutMs?: number } = {},
): Promise<ControlResult> {
  const nc = deps.nats;
  const prefix = deps.config.NATS_STREAM_PREFIX;
  const inbox = createInbox();
  const subscription = nc.subscribe(inbox, { max: 1 });
  const timeoutMs = options.timeoutMs ?? CONTROL_TIMEOUT_MS;
  let poll: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (!streamsReady.has(nc))
      streamsReady.set(
        nc,
        ensureEventStreams(
          await nc.jetstreamManager({ timeout: deps.config.NATS_REQUEST_TIMEOUT_MS }),
          eventStreamSettings(deps.config),
        ).catch((error: unknown) => {
          streamsReady.delete(nc);
          throw error;
        }),
      );
    const h = natsHeaders();
    h.set(HEADER_KIND, KIND_CONTROL);
    h.set(HEADER_VERSION, WIRE_VERSION);
    h.set(HEADER_REPLY, inbox);
    const namespace = record.op === 'delete_entity' ? record.n : 't';
    const subject = partitionSubject(prefix, partitionOf(namespace, record.e, deps.config.NATS_PARTITIONS));
    try {
      await streamsReady.get(nc);
      await nc.jetstream().publish(subject, JSON.stringify(record), { headers: h, msgID: `ctl-${record.id}` });
    } catch (error) {
      // The stream may have been deleted: the next deletion checks (and creates) it again.
      streamsReady.delete(nc);
      throw apiError('events_not_persisted', 'the deletion could not be queued', undefined, { cause: error });
    }
    const replied = (async () => {
      for await (const message of subscription) return parseResult(message.string());
      return undefined;
    })();
    const polled = new Promise<ControlResult>((resolve) => {
      poll = setInterval(() => {
        deps.redis.get(redisKeys(deps.keyPrefix).controlResult(record.id)).then(
          (text) => {
            const result = text === null ? undefined : parseResult(text);
            if (result) resolve(result);
          },
          () => undefined, // Redis unreachable for a moment: the reply or the next poll will do
        );
      }, RESULT_POLL_MS);
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(apiError('events_not_persisted', `the deletion was not confirmed within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
    });
    return await Promise.race([replied.then((r) => r ?? polled), polled, timedOut]);
  } finally {
    clearInterval(poll);
    clearTimeout(timer);
    subscription.unsubscribe();
  }
}

function parseResult(text: string): ControlResult | undefined {
  try {
    const value = JSON.parse(text) as { deleted?: unknown };
    return typeof value.deleted === 'number' ? { deleted: value.deleted } : undefined;
  } catch {
    return undefined;
  }
}
