/**
 * Prometheus metrics of the ingest door. Counted once per request (per
 * distinct refusal reason, per publish), never per event: the per-event path
 * stays as it is.
 */
import { Counter, DURATION_BUCKETS, Gauge, Histogram, type Registry } from '../../shared/observability/metrics.js';
import type { IngestResult } from './ingest-port.js';
import { eventRefusalReason, INGEST_REFUSAL_REASONS, requestRefusalReason } from './refusal-reasons.js';

export type IngestTransport = 'http' | 'grpc';

/** What the publisher reports of one request's publish. */
export interface PublishObserver {
  /** `seconds` is undefined when nothing could be sent (NATS disconnected). */
  published(seconds: number | undefined, outcome: { acked: number; duplicates: number; failed: number }): void;
}

export interface IngestMetrics extends PublishObserver {
  /** A request whose events were published: the added ones and those refused one by one. */
  committed(result: IngestResult): void;
  /**
   * A request that failed: `offered` events, counted under `error`'s reason,
   * except those its result already refused for their own reason.
   */
  failed(offered: number, error: unknown, result?: IngestResult): void;
  received(transport: IngestTransport, bytes: number): void;
  /** Bytes of a request's records that went to its spill file (memory was taken). */
  spilled(bytes: number): void;
}

export function createIngestMetrics(
  registry: Registry,
  budget: { readonly inUse: number; readonly limit: number },
  memory?: { readonly inUse: number; readonly limit: number },
): IngestMetrics {
  const registers = [registry];
  const accepted = new Counter({
    name: 'clearml_ingest_events_accepted_total',
    help: 'Events published to JetStream (added)',
    registers,
  });
  const refused = new Counter<'reason'>({
    name: 'clearml_ingest_events_refused_total',
    help: "Events refused, by reason: the error catalogue id of the event's own rejection or of its request's refusal (docs/errors.md); cancelled when the client went away",
    labelNames: ['reason'],
    registers,
  });
  const receivedBytes = new Counter<'transport'>({
    name: 'clearml_ingest_received_bytes_total',
    help: 'Bytes of event requests received (HTTP bodies of events.add and events.add_batch, gRPC messages), by transport',
    labelNames: ['transport'],
    registers,
  });
  new Gauge({
    name: 'clearml_ingest_inflight_bytes',
    help: 'Bytes of parsed events this process holds before JetStream acknowledged them',
    registers,
    collect() {
      this.set(budget.inUse);
    },
  });
  new Gauge({
    name: 'clearml_ingest_inflight_limit_bytes',
    help: 'INGEST_MAX_INFLIGHT_BYTES: beyond it requests are answered 429',
    registers,
  }).set(budget.limit);
  if (memory !== undefined) {
    new Gauge({
      name: 'clearml_ingest_memory_bytes',
      help: 'Bytes of encoded events held in memory (INGEST_MAX_MEMORY_BYTES bounds them; beyond it they spill to disk)',
      registers,
      collect() {
        this.set(memory.inUse);
      },
    });
    new Gauge({ name: 'clearml_ingest_memory_limit_bytes', help: 'INGEST_MAX_MEMORY_BYTES', registers }).set(
      memory.limit,
    );
  }
  const spilledBytes = new Counter({
    name: 'clearml_ingest_spilled_bytes_total',
    help: 'Bytes of encoded events written to spill files (INGEST_SPILL_DIR) because memory was taken',
    registers,
  });
  const publishSeconds = new Histogram({
    name: 'clearml_ingest_publish_duration_seconds',
    help: 'Time from the first publish of a request to the last JetStream acknowledgement (or failure)',
    buckets: DURATION_BUCKETS,
    registers,
  });
  const messages = new Counter<'result'>({
    name: 'clearml_ingest_jetstream_messages_total',
    help: 'Messages published to JetStream, by result: acked (stored), duplicate (acked, already stored: a re-send), failed',
    labelNames: ['result'],
    registers,
  });
  for (const reason of INGEST_REFUSAL_REASONS) refused.inc({ reason }, 0);
  for (const result of ['acked', 'duplicate', 'failed']) messages.inc({ result }, 0);
  for (const transport of ['http', 'grpc']) receivedBytes.inc({ transport }, 0);

  const refusedOneByOne = (result: IngestResult) => {
    for (const reason in result.errors_info)
      refused.inc({ reason: eventRefusalReason(reason) }, result.errors_info[reason]!);
  };
  return {
    committed(result) {
      accepted.inc(result.added);
      if (result.errors > 0) refusedOneByOne(result);
    },
    failed(offered, error, result) {
      let rest = offered;
      if (result !== undefined) {
        refusedOneByOne(result);
        rest = result.added;
      }
      if (rest > 0) refused.inc({ reason: requestRefusalReason(error) }, rest);
    },
    received(transport, bytes) {
      receivedBytes.inc({ transport }, bytes);
    },
    spilled(bytes) {
      spilledBytes.inc(bytes);
    },
    published(seconds, outcome) {
      if (seconds !== undefined) publishSeconds.observe(seconds);
      if (outcome.acked > 0) messages.inc({ result: 'acked' }, outcome.acked);
      if (outcome.duplicates > 0) messages.inc({ result: 'duplicate' }, outcome.duplicates);
      if (outcome.failed > 0) messages.inc({ result: 'failed' }, outcome.failed);
    },
  };
}
