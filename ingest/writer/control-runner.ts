/**
 * Runs a control message (header `k: ctl`): decodes its ControlRecord, runs
 * the deletion, keeps and sends the result, then acknowledges. A control
 * message that cannot be decoded is a poison message like any other.
 */
import type { NatsConnection } from 'nats';
import { HEADER_REPLY, type ControlRecord } from '../../shared/events/wire-format.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { ControlExecutor } from './control-executor.js';
import type { DeadLetters } from './dead-letters.js';
import { ackPolicy, acknowledge, type Delivery } from './jetstream-delivery.js';
import type { DeadLetterReason } from './store-errors.js';
import { StoreRefused, untilStored, type RetryOptions } from './store-retry.js';
import type { WriterMetrics } from './writer-metrics.js';

export class ControlRunner {
  constructor(
    private readonly executor: ControlExecutor,
    private readonly deadLetters: DeadLetters,
    private readonly nc: NatsConnection,
    /** WriterSettings.noConsumerAfterMs. */
    private readonly noConsumerAfterMs: number,
    private readonly metrics: WriterMetrics,
    private readonly logger: Logger,
  ) {}

  async run(delivery: Delivery, partition: number, retry: RetryOptions): Promise<void> {
    const record = decodeControl(delivery.msg.data);
    if (typeof record === 'string') {
      await this.deadLetter(delivery, partition, retry, 'undecodable', record);
    } else {
      const started = Date.now();
      try {
        const deleted = await untilStored('influx', retry, () => this.executor.execute(record));
        await untilStored('redis', retry, () =>
          this.executor.answer(record.id, delivery.header(HEADER_REPLY), deleted),
        );
        this.metrics.controls.inc({ op: record.op });
        this.logger.info(
          { partition, op: record.op, entity: record.e, deleted, ms: Date.now() - started },
          'control request done',
        );
      } catch (error) {
        // A store refusing the deletion for good (a key of another type, say): the request is
        // dead-lettered, unanswered (the requester times out), and the partition goes on.
        if (!(error instanceof StoreRefused)) throw error;
        await this.deadLetter(delivery, partition, retry, error.reason, error.detail);
      }
    }
    await untilStored('nats', retry, () => acknowledge(this.nc, [delivery]), ackPolicy(this.noConsumerAfterMs));
  }

  private async deadLetter(
    delivery: Delivery,
    partition: number,
    retry: RetryOptions,
    reason: DeadLetterReason,
    detail: string,
  ): Promise<void> {
    await untilStored('nats', retry, () => this.deadLetters.publish({ delivery, partition, reason, detail }));
    this.metrics.deadLetters.inc({ reason });
    this.logger.warn(
      { partition, streamSeq: delivery.streamSeq, reason, detail },
      'control message moved to the dead-letter stream',
    );
  }
}

/** The record, or why it is not one. */
function decodeControl(data: Uint8Array): ControlRecord | string {
  let value: Partial<ControlRecord> & { op?: unknown };
  try {
    value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return 'control record is not JSON';
  }
  if (value === null || typeof value !== 'object' || typeof value.e !== 'string' || typeof value.id !== 'string')
    return 'control record lacks e or id';
  if (value.op === 'delete_entity')
    return value.n === 't' || value.n === 'm' ? (value as ControlRecord) : 'delete_entity without namespace n';
  if (value.op === 'clear_task_log') {
    const v = value as Extract<ControlRecord, { op: 'clear_task_log' }>;
    const listOk = (list: unknown) =>
      list === undefined || (Array.isArray(list) && list.every((m) => typeof m === 'string'));
    if ((v.before !== undefined && typeof v.before !== 'number') || !listOk(v.include) || !listOk(v.exclude))
      return 'clear_task_log with malformed before/include/exclude';
    return v;
  }
  return `unknown control op ${JSON.stringify(value.op)}`;
}
