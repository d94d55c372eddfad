/**
 * Helpers for the writer's integration tests: JetStream messages made by
 * the production encoder (as ingest publishes them), and direct
 * reads of what the writer stored in InfluxDB and Redis.
 */
import { connect, headers as natsHeaders, type JetStreamManager, type NatsConnection } from 'nats';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { startHarness, type Harness } from '../harness/service-harness.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import {
  consumerName,
  deadLetterStreamName,
  decodeRecords,
  frameRecord,
  HEADER_KIND,
  HEADER_VERSION,
  WIRE_VERSION,
  partitionOf,
  partitionSubject,
  streamName,
  type ControlRecord,
  type EntitySummary,
} from '../../shared/events/wire-format.js';
import type { Config } from '../../shared/config/config.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { EventEncoder } from '../../ingest/events/event-encoder.js';
import type { NormalizedEvent } from '../../ingest/events/event-normalizer.js';
import { normalizedEvent as normalized, type EventSpec } from '../../ingest/writer/normalized-event-test-harness.js';
import { RecordSink } from '../../ingest/events/record-sink.js';
import { EntitySummaryBuilder } from '../../ingest/events/request-summary.js';
import { eventually } from '../harness/eventually.js';

/** The time of the records tests build: their events' timestamp and their request's arrival unless given. */
const AT = 1_700_000_000_000;

/**
 * One event's wire record, made by the production encoder: a change of the
 * wire format changes what these tests publish. The normaliser's checks are
 * bypassed on purpose (a writer must survive what ingest let through).
 * Company `co` and arrival at the event's timestamp unless given.
 */
export function eventRecord(spec: EventSpec, options: { company?: string; receivedAt?: number } = {}): string {
  const event = normalized(spec);
  return encodeWith(new EventEncoder(options.company ?? 'co', options.receivedAt ?? event.timestamp), event);
}

function encodeWith(encoder: EventEncoder, event: NormalizedEvent): string {
  if (event.type === 'log') return encoder.log(event);
  // The stored form of a plot below the compression threshold: `p` and the text (events.md §1.7).
  if (event.type === 'plot')
    return encoder.plotPoint(event, { stored: `p${event.plotStr ?? ''}`, length: (event.plotStr ?? '').length });
  return encoder.point(event);
}

/** A scalar's record (the writer tests' most common record); `extra` sets any other field of the event. */
export const scalarRecord = (
  entity: string,
  metric: string,
  variant: string,
  iter: number | undefined,
  value: number,
  extra: Partial<EventSpec> & { company?: string } = {},
) => {
  const { company, ...fields } = extra;
  return eventRecord({ type: 'training_stats_scalar', entity, metric, variant, iter, value, ...fields }, { company });
};

/** A production-encoded record with its body edited: a point InfluxDB refuses, a field of another type. */
export function editedRecord(record: string, edit: (body: string) => string): string {
  const [decoded] = [...decodeRecords(record)];
  return frameRecord(decoded!.kind, edit(decoded!.body));
}

/** A log line's record. */
export const logRecord = (
  task: string,
  timestamp: number,
  msg: string,
  extra: Partial<EventSpec> = {},
  company = 'co',
) => eventRecord({ type: 'log', entity: task, timestamp, msg, level: 'info', ...extra }, { company, receivedAt: AT });

export type { EventSpec };

export const summaryRecord = (summary: EntitySummary) => frameRecord('R', JSON.stringify(summary));

/**
 * The payload(s) ingest would publish for one entity's events of one
 * request, made by the production encoder, summary builder and record sink
 * (events in line order, then the entity summary). The door's per-event
 * checks are bypassed on purpose: these are the events a writer must
 * survive even when ingest let them through.
 */
export function encodeEntityRequest(
  company: string,
  events: EventSpec[],
  options: { user?: string; receivedAt?: number } = {},
): Uint8Array[] {
  const receivedAt = options.receivedAt ?? AT;
  const first = normalized(events[0]!);
  const encoder = new EventEncoder(company, receivedAt);
  const summary = new EntitySummaryBuilder(company, first.namespace, first.entity);
  const sink = new RecordSink(1 << 20, 8 << 20);
  for (const spec of events) {
    const event = normalized(spec);
    summary.add(event);
    sink.append(encodeWith(encoder, event));
  }
  sink.append(frameRecord('R', JSON.stringify(summary.build(options.user ?? 'u1', receivedAt))));
  return sink.payloads();
}

export class PipelineClient {
  private constructor(
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    readonly redis: ReturnType<typeof createClient>,
    readonly influx: InfluxStore,
    readonly config: Readonly<Config>,
  ) {}

  static async open(config: Readonly<Config>): Promise<PipelineClient> {
    const nc = await connect({ servers: config.NATS_URL });
    const redis = createClient({ url: config.REDIS_URL });
    await redis.connect();
    const influx = new InfluxStore({ url: config.INFLUX_URL, database: config.INFLUX_DB });
    return new PipelineClient(nc, await nc.jetstreamManager(), redis, influx, config);
  }

  get keys() {
    return redisKeys(this.config.REDIS_KEY_PREFIX);
  }

  subjectOf(entity: string, namespace: 't' | 'm' = 't'): string {
    return partitionSubject(
      this.config.NATS_STREAM_PREFIX,
      partitionOf(namespace, entity, this.config.NATS_PARTITIONS),
    );
  }

  /** Publishes one message of records for the entity's partition; answers its stream seq. */
  async publish(
    entity: string,
    records: string[] | string,
    options: { namespace?: 't' | 'm'; headers?: Record<string, string> } = {},
  ): Promise<number> {
    const h = natsHeaders();
    for (const [k, v] of Object.entries(options.headers ?? {})) h.set(k, v);
    const payload = Array.isArray(records) ? records.join('') : records;
    const ack = await this.nc.jetstream().publish(this.subjectOf(entity, options.namespace), payload, { headers: h });
    return ack.seq;
  }

  /** Publishes one entity's request (production-encoded) to its partition, as ingest does; answers each message's stream seq. */
  async publishRequest(
    company: string,
    events: EventSpec[],
    options: { user?: string; receivedAt?: number } = {},
  ): Promise<number[]> {
    const first = normalized(events[0]!);
    const seqs: number[] = [];
    for (const payload of encodeEntityRequest(company, events, options)) {
      const h = natsHeaders();
      h.set(HEADER_KIND, 'ev');
      h.set(HEADER_VERSION, WIRE_VERSION);
      seqs.push(
        (await this.nc.jetstream().publish(this.subjectOf(first.entity, first.namespace), payload, { headers: h })).seq,
      );
    }
    return seqs;
  }

  async publishControl(record: ControlRecord, reply?: string): Promise<number> {
    return this.publish(record.e, JSON.stringify(record), {
      namespace: record.op === 'delete_entity' ? record.n : 't',
      headers: { k: 'ctl', ...(reply ? { reply } : {}) },
    });
  }

  /** Waits until every partition's consumer has nothing waiting and nothing in flight. */
  async drained(timeoutMs = 30_000): Promise<void> {
    const stream = streamName(this.config.NATS_STREAM_PREFIX);
    await eventually(
      async () => {
        const info = await this.jsm.streams.info(stream);
        if (info.state.messages !== 0) return false;
        for (let p = 0; p < this.config.NATS_PARTITIONS; p++) {
          const c = await this.jsm.consumers
            .info(stream, consumerName(this.config.NATS_STREAM_PREFIX, p))
            .catch(() => undefined);
          if (c && c.num_ack_pending + c.num_pending > 0) return false;
        }
        return true;
      },
      undefined,
      { timeoutMs: timeoutMs },
    );
  }

  async count(measurement: string, entity: string): Promise<number> {
    const r = await this.influx.query(`SELECT COUNT("ts") FROM "${measurement}" WHERE "e"='${entity}'`);
    return Number(r[0]?.series?.[0]?.values[0]?.[1] ?? 0);
  }

  async points(measurement: string, entity: string, extra = ''): Promise<Array<Record<string, unknown>>> {
    const r = await this.influx.query(`SELECT * FROM "${measurement}" WHERE "e"='${entity}' ${extra}`);
    const series = r[0]?.series?.[0];
    if (!series) return [];
    return series.values.map((row) => Object.fromEntries(series.columns.map((c, i) => [c, row[i]])));
  }

  /** Every log entry of a task: [segment, id, event] in segment order. */
  async logEntries(task: string): Promise<Array<{ segment: number; id: string; event: Record<string, unknown> }>> {
    const count = Number((await this.redis.get(this.keys.logSegmentCount(task))) ?? 1);
    const out = [];
    for (let s = 0; s < count; s++) {
      for (const entry of await this.redis.xRange(this.keys.logSegment(task, s), '-', '+')) {
        out.push({ segment: s, id: entry.id, event: JSON.parse(String(entry.message.d)) as Record<string, unknown> });
      }
    }
    return out;
  }

  /** Every message of the dead-letter stream, oldest first. */
  async deadLetters(): Promise<Array<{ seq: number; header: (name: string) => string | undefined; data: string }>> {
    const dead = deadLetterStreamName(this.config.NATS_STREAM_PREFIX);
    const info = await this.jsm.streams.info(dead);
    const out = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await this.jsm.streams.getMessage(dead, { seq }).catch(() => undefined);
      if (m) out.push({ seq, header: (name: string) => m.header.get(name) || undefined, data: m.string() });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.nc.close();
    await this.redis.quit();
  }
}

/**
 * A writer target and a PipelineClient for the tests of one file: started
 * before them, stopped after them (also after a start that failed halfway).
 */
export function writerPipeline(): { readonly harness: Harness; readonly client: PipelineClient } {
  let harness: Harness | undefined;
  let client: PipelineClient | undefined;
  beforeAll(async () => {
    harness = await startHarness({ target: 'writer' });
    client = await PipelineClient.open(harness.config);
  });
  afterAll(async () => {
    await client?.close();
    await harness?.stop();
  });
  return {
    get harness() {
      return harness!;
    },
    get client() {
      return client!;
    },
  };
}
