/**
 * The identity of an event (events.md §1.5): two accepted events with the
 * same identity are one stored event, the later replacing the earlier.
 * `log` events have none (every log line is new).
 */
import { createHash } from 'node:crypto';

export type EventNamespace = 'task' | 'model';

export interface EventIdentity {
  readonly company: string;
  readonly namespace: EventNamespace;
  /** Task or model id (the normalised event's `task`). */
  readonly entity: string;
  readonly type: string;
  /** Absent (or null) is distinct from every iteration value. */
  readonly iter?: number | null;
  readonly metric: string;
  readonly variant: string;
  /** Absent (or null) is distinct from every key, the empty string included. */
  readonly key?: string | null;
}

const SEPARATOR = '|';
// Escaping only ever yields `\\` and `\|`, so `\N` can stand for "absent".
const ABSENT = '\\N';

function escape(part: string): string {
  return part.includes('\\') || part.includes(SEPARATOR) ? part.replace(/[\\|]/g, '\\$&') : part;
}

/**
 * A string equal for two events exactly when their identities are equal
 * (separators inside the parts are escaped, so no two tuples collide).
 */
export function eventIdentityKey(identity: EventIdentity): string {
  const iter = identity.iter === undefined || identity.iter === null ? ABSENT : String(identity.iter);
  const key = identity.key === undefined || identity.key === null ? ABSENT : escape(identity.key);
  return [
    escape(identity.company),
    identity.namespace,
    escape(identity.entity),
    escape(identity.type),
    iter,
    escape(identity.metric),
    escape(identity.variant),
    key,
  ].join(SEPARATOR);
}

/**
 * A fixed-size form of the key (SHA-256, first 128 bits, base64url: 22
 * characters) for stores that need short ids; collisions are negligible.
 */
export function eventIdentityDigest(identity: EventIdentity): string {
  return createHash('sha256').update(eventIdentityKey(identity)).digest().subarray(0, 16).toString('base64url');
}
