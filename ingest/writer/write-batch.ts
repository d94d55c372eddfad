/**
 * What one partition accumulates between two store writes: the messages (to
 * acknowledge once stored), the InfluxDB body with where each point starts
 * and which record it came from (to find the one a refused body is refused
 * for), log lines grouped by task, entity summaries in stream order, and the
 * records (or whole messages) that will not be stored, with why.
 */
import type { EntitySummary, LogRecord } from '../../shared/events/wire-format.js';
import type { Delivery } from './jetstream-delivery.js';
import { logEntryMs } from './log-segment-appender.js';
import { PointBuffer } from './point-buffer.js';
import { MalformedMessage, scanRecords, type PointHeader, type RecordTarget } from './record-scanner.js';
import { describeError, type DeadLetterReason } from './store-errors.js';

/** One task's log lines of the batch, as parallel arrays (no object per line). */
export class TaskLogs {
  readonly timestamps: number[] = [];
  readonly seqs: number[] = [];
  readonly events: string[] = [];
  /** Index of the delivery each line came from, and of the record in its message. */
  readonly owners: number[] = [];
  readonly indexes: number[] = [];
  /** Some line may already be stored (redelivery): the append script must skip existing ids. */
  mayExist = false;
}

export interface BatchSummary {
  summary: EntitySummary;
  seq: number;
  owner: number;
  index: number;
}

/** A record, or without `index` a whole message, that will not be stored. */
export interface Refusal {
  owner: number;
  index?: number;
  reason: DeadLetterReason;
  detail: string;
  /** What to dead-letter instead of the original record (the refused part of a summary). */
  record?: string;
}

export class WriteBatch implements RecordTarget {
  readonly points = new PointBuffer();
  readonly deliveries: Delivery[] = [];
  /** Per point, in body order: where its line starts in `points`, its delivery, its record index. */
  readonly pointStarts: number[] = [];
  readonly pointOwners: number[] = [];
  readonly pointIndexes: number[] = [];
  readonly logs = new Map<string, TaskLogs>();
  readonly summaries: BatchSummary[] = [];
  readonly refusals: Refusal[] = [];
  events = 0;
  logLines = 0;
  startedAt = 0;

  // Records of the message being scanned, committed only if its frames are all sound.
  private readonly pendingLogs: Array<{ record: LogRecord; seq: number; index: number }> = [];
  private readonly pendingSummaries: Array<{ summary: EntitySummary; seq: number; index: number }> = [];
  private readonly pendingRefusals: Refusal[] = [];
  private owner = 0;

  get empty(): boolean {
    return this.deliveries.length === 0;
  }

  get pointCount(): number {
    return this.pointStarts.length;
  }

  /** The body lines of points [from, to). */
  pointBytes(from: number, to: number): Buffer {
    return this.points.bytes(
      this.pointStarts[from],
      to < this.pointStarts.length ? this.pointStarts[to] : this.points.length,
    );
  }

  add(delivery: Delivery): void {
    const owner = this.push(delivery);
    const startLength = this.points.length;
    const startPoints = this.points.points;
    const startCount = this.pointStarts.length;
    this.pendingLogs.length = 0;
    this.pendingSummaries.length = 0;
    this.pendingRefusals.length = 0;
    const data = delivery.msg.data;
    try {
      scanRecords(Buffer.from(data.buffer, data.byteOffset, data.byteLength), delivery.streamSeq, this);
    } catch (error) {
      // Whatever went wrong while reading it, the message alone pays: never the partition.
      this.points.truncate(startLength, startPoints);
      this.pointStarts.length = this.pointOwners.length = this.pointIndexes.length = startCount;
      const reason = error instanceof MalformedMessage ? 'undecodable' : 'writer_error';
      this.refusals.push({ owner, reason, detail: describeError(error) });
      return;
    }
    this.events += this.points.points - startPoints;
    for (const { record, seq, index } of this.pendingLogs) {
      const task = record[1];
      let logs = this.logs.get(task);
      if (!logs) this.logs.set(task, (logs = new TaskLogs()));
      logs.timestamps.push(record[2]);
      logs.seqs.push(seq);
      logs.events.push(record[3]);
      logs.owners.push(owner);
      logs.indexes.push(index);
      if (delivery.possiblyRedelivered) logs.mayExist = true;
    }
    this.events += this.pendingLogs.length;
    this.logLines += this.pendingLogs.length;
    for (const { summary, seq, index } of this.pendingSummaries) this.summaries.push({ summary, seq, owner, index });
    for (const refusal of this.pendingRefusals) this.refusals.push(refusal);
  }

  /** Takes a message that is not read at all (an unknown wire version): it is dead-lettered whole. */
  refuseMessage(delivery: Delivery, reason: DeadLetterReason, detail: string): void {
    this.refusals.push({ owner: this.push(delivery), reason, detail });
  }

  refuse(refusal: Refusal): void {
    this.refusals.push(refusal);
  }

  point(
    src: Buffer,
    start: number,
    end: number,
    seq: number,
    index: number,
    header?: PointHeader,
    headStart?: number,
    headEnd?: number,
  ): boolean {
    const at = this.points.length;
    if (!this.points.append(src, start, end, seq, header, headStart, headEnd)) return false;
    this.pointStarts.push(at);
    this.pointOwners.push(this.owner);
    this.pointIndexes.push(index);
    return true;
  }

  log(record: LogRecord, seq: number, index: number): void {
    if (logEntryMs(record[2]) === undefined) {
      this.pendingRefusals.push({
        owner: this.owner,
        index,
        reason: 'invalid_log_id',
        detail: `log timestamp ${record[2]} cannot form a Redis stream id`,
      });
    } else {
      this.pendingLogs.push({ record, seq, index });
    }
  }

  summary(summary: EntitySummary, seq: number, index: number): void {
    this.pendingSummaries.push({ summary, seq, index });
  }

  malformed(index: number, detail: string): void {
    this.pendingRefusals.push({ owner: this.owner, index, reason: 'undecodable', detail });
  }

  reset(): void {
    this.points.reset();
    this.deliveries.length = 0;
    this.pointStarts.length = 0;
    this.pointOwners.length = 0;
    this.pointIndexes.length = 0;
    this.logs.clear();
    this.summaries.length = 0;
    this.refusals.length = 0;
    this.events = 0;
    this.logLines = 0;
    this.startedAt = 0;
  }

  private push(delivery: Delivery): number {
    if (this.deliveries.length === 0) this.startedAt = Date.now();
    this.owner = this.deliveries.length;
    this.deliveries.push(delivery);
    return this.owner;
  }
}
