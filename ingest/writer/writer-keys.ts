/**
 * Redis keys only the writer uses (coordination between writer processes).
 * Entity, log, listing and control-result keys come from
 * shared/events/storage-layout.ts.
 */
export function writerKeys(redisPrefix: string, streamPrefix: string) {
  // Leases belong to a JetStream stream, so the stream prefix is part of them:
  // two deployments sharing one Redis prefix never steal each other's partitions.
  const base = `${redisPrefix}:writer:${streamPrefix}`;
  return {
    lease: (partition: number) => `${base}:lease:${partition}`,
    /** Sorted set: writer id -> heartbeat expiry (Redis clock, epoch ms). */
    liveWriters: `${base}:live`,
  };
}

export type WriterKeys = ReturnType<typeof writerKeys>;
