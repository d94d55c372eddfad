/**
 * What one partition accumulates between two store writes: the messages (to
 * acknowledge once stored), the InfluxDB body with each message's byte range
 * (to retry a rejected body message by message), log lines grouped by task,
 * entity summaries in stream order, and the messages found malformed.
 */
import type { EntitySummary, LogRecord } from '../../shared/events/wire-format.js';
import type { Delivery } from './jetstream-delivery.js';
import { PointBuffer } from './point-buffer.js';
import { MalformedMessage, scanRecords, type RecordTarget } from './record-scanner.js';

/** One task's log lines of the batch, as parallel arrays (no object per line). */
export class TaskLogs {
  readonly timestamps: number[] = [];
  readonly seqs: number[] = [];
  readonly events: string[] = [];
  /** Index of the delivery each line came from. */
  readonly owners: number[] = [];
  /** Some line may already be stored (redelivery): the append script must skip existing ids. */
  mayExist = false;
}

export interface BatchSummary {
  summary: EntitySummary;
  seq: number;
  owner: number;
}

export class WriteBatch implements RecordTarget {
  readonly points = new PointBuffer();
  readonly deliveries: Delivery[] = [];
  /** Per delivery: its point bytes are points.bytes(pointStarts[i], pointEnds[i]). */
  readonly pointStarts: number[] = [];
  readonly pointEnds: number[] = [];
  readonly pointCounts: number[] = [];
  readonly logs = new Map<string, TaskLogs>();
  readonly summaries: BatchSummary[] = [];
  /** Delivery index -> why it can never be stored. */
  readonly rejected = new Map<number, string>();
  events = 0;
  logLines = 0;
  startedAt = 0;

  // Records of the message being scanned, committed only if the whole message is well formed.
  private readonly pendingLogs: Array<{ record: LogRecord; seq: number }> = [];
  private readonly pendingSummaries: Array<{ summary: EntitySummary; seq: number }> = [];

  get empty(): boolean {
    return this.deliveries.length === 0;
  }

  add(delivery: Delivery): void {
    if (this.deliveries.length === 0) this.startedAt = Date.now();
    const owner = this.deliveries.length;
    this.deliveries.push(delivery);
    const startLength = this.points.length;
    const startPoints = this.points.points;
    this.pendingLogs.length = 0;
    this.pendingSummaries.length = 0;
    const data = delivery.msg.data;
    try {
      scanRecords(Buffer.from(data.buffer, data.byteOffset, data.byteLength), delivery.streamSeq, this);
    } catch (error) {
      if (!(error instanceof MalformedMessage)) throw error;
      this.points.truncate(startLength, startPoints);
      this.deliveries.pop();
      this.addRejected(delivery, `undecodable: ${error.message}`);
      return;
    }
    this.pointStarts.push(startLength);
    this.pointEnds.push(this.points.length);
    this.pointCounts.push(this.points.points - startPoints);
    this.events += this.points.points - startPoints;
    for (const { record, seq } of this.pendingLogs) {
      const task = record[1];
      let logs = this.logs.get(task);
      if (!logs) this.logs.set(task, (logs = new TaskLogs()));
      logs.timestamps.push(record[2]);
      logs.seqs.push(seq);
      logs.events.push(record[3]);
      logs.owners.push(owner);
      if (delivery.possiblyRedelivered) logs.mayExist = true;
    }
    this.events += this.pendingLogs.length;
    this.logLines += this.pendingLogs.length;
    for (const { summary, seq } of this.pendingSummaries) this.summaries.push({ summary, seq, owner });
  }

  /** A message none of whose records may be stored: it is only dead-lettered and acknowledged in its place. */
  addRejected(delivery: Delivery, reason: string): void {
    if (this.deliveries.length === 0) this.startedAt = Date.now();
    this.rejected.set(this.deliveries.length, reason);
    this.deliveries.push(delivery);
    this.pointStarts.push(this.points.length);
    this.pointEnds.push(this.points.length);
    this.pointCounts.push(0);
  }

  point(src: Buffer, start: number, end: number, seq: number): boolean {
    return this.points.append(src, start, end, seq);
  }

  log(record: LogRecord, seq: number): void {
    this.pendingLogs.push({ record, seq });
  }

  summary(summary: EntitySummary, seq: number): void {
    this.pendingSummaries.push({ summary, seq });
  }

  reset(): void {
    this.points.reset();
    this.deliveries.length = 0;
    this.pointStarts.length = 0;
    this.pointEnds.length = 0;
    this.pointCounts.length = 0;
    this.logs.clear();
    this.summaries.length = 0;
    this.rejected.clear();
    this.events = 0;
    this.logLines = 0;
    this.startedAt = 0;
  }
}
