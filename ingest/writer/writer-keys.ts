/**
 * Redis keys only the writer uses (coordination between writer processes),
 * plus the control-result key that requesters poll. Entity, log and listing
 * keys come from shared/events/storage-layout.ts.
 */
export function writerKeys(redisPrefix: string, streamPrefix: string) {
  // Leases belong to a JetStream stream, so the stream prefix is part of them:
  // two deployments sharing one Redis prefix never steal each other's partitions.
  const base = `${redisPrefix}:writer:${streamPrefix}`;
  return {
    lease: (partition: number) => `${base}:lease:${partition}`,
    /** Sorted set: writer id -> heartbeat expiry (Redis clock, epoch ms). */
    liveWriters: `${base}:live`,
    /** String: `{"deleted": n}` of a control request, kept 1 h for a requester that missed the reply. */
    controlResult: (id: string) => `${redisPrefix}:ctl:${id}`,
  };
}

export type WriterKeys = ReturnType<typeof writerKeys>;
