/**
 * "A 503 means not stored", across the gap a client cannot close.
 *
 * Ingest answers 503 when JetStream has not acknowledged a message within
 * INGEST_PUBLISH_TIMEOUT_MS. The message may still be stored afterwards: it
 * sat in the socket of a server that was stopped (SIGSTOP, a stalled host) and
 * is read when the server resumes. Nothing on the client can take it back. So
 * each event message carries the time after which ingest stops waiting (its
 * deadline, epoch ms), and the writer skips a message that JetStream stored
 * (its stream timestamp) later than that deadline plus a slack for the clock
 * difference between the ingest host and the NATS server
 * (PUBLISH_DEADLINE_SLACK_MS): ingest has answered 503 for it, and the
 * client re-sends it. A message stored before its deadline is kept, acknowledged or not
 * (a PubAck lost on the way back is the re-send case of docs/ingest.md).
 */

/** Header of an event message: the publish deadline, epoch milliseconds. */
export const HEADER_PUBLISH_DEADLINE = 'deadline';

/**
 * True when the message was stored too late to count: its request was
 * answered 503. Messages without the header (control records, older
 * ingest processes) are never late.
 */
export function storedAfterDeadline(deadlineHeader: string | undefined, storedAtMs: number, slackMs: number): boolean {
  if (deadlineHeader === undefined) return false;
  const deadline = Number(deadlineHeader);
  if (!Number.isFinite(deadline) || !Number.isFinite(storedAtMs)) return false;
  return storedAtMs > deadline + slackMs;
}
