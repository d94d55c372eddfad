/**
 * Redis keys only the writer uses (coordination between writer processes),
 * under the one key layout of shared/stores/redis-keys.ts.
 */
import { redisKeys } from '../../shared/stores/redis-keys.js';

export function writerKeys(redisPrefix: string, streamPrefix: string) {
  // Leases belong to a JetStream stream, so the stream prefix is part of them:
  // two deployments sharing one Redis prefix never steal each other's partitions.
  const base = redisKeys(redisPrefix).writer(streamPrefix);
  return {
    lease: (partition: number) => `${base}:lease:${partition}`,
    /** Sorted set: writer id -> heartbeat expiry (Redis clock, epoch ms). */
    liveWriters: `${base}:live`,
  };
}

export type WriterKeys = ReturnType<typeof writerKeys>;
