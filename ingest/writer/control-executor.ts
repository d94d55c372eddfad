/**
 * Deletions requested through the stream (events.md §6.3, §9), run by the
 * partition's writer at their place in stream order, after the events
 * before them were stored: so they cover every event acknowledged before
 * the request, and none after it. Running one twice is harmless: the second
 * run finds nothing, and the first result is the one kept and answered.
 */
import type { NatsConnection } from 'nats';
import {
  encodeTagValue,
  influxQlIdentifier,
  influxQlString,
  MEASUREMENT,
  PLOT_BODY_MEASUREMENT,
  FIELD,
  LAST_SCALAR_AT_FIELD,
  LISTING_VERSION_FIELD,
  MAX_ITER_FIELD,
} from '../../shared/events/storage-layout.js';
import { anchorMeasurements } from './measurement-anchors.js';
import { redisKeys, type RedisKeys } from '../../shared/stores/redis-keys.js';
import type { ControlRecord } from '../../shared/events/wire-format.js';
import type { InfluxStore } from '../../shared/stores/influx-store.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';

const RESULT_TTL_S = 3600;
const SCAN_PAGE = 1000;
/** Events are counted by their points; a plot's body (PLOT_BODY_MEASUREMENT) goes with its point. */
const MEASUREMENTS = Object.values(MEASUREMENT);
const DROPPED = [...MEASUREMENTS, PLOT_BODY_MEASUREMENT];

export class ControlExecutor {
  private readonly keys: RedisKeys;

  constructor(
    private readonly influx: InfluxStore,
    private readonly redis: RedisClient,
    private readonly nc: NatsConnection,
    redisPrefix: string,
  ) {
    this.keys = redisKeys(redisPrefix);
  }

  /** Runs the deletion; answers the number of events deleted. */
  async execute(record: ControlRecord): Promise<number> {
    if (record.op === 'delete_entity') return this.deleteEntity(record.c, record.n, record.e);
    return this.clearTaskLog(record.e, record.before, record.include, record.exclude);
  }

  /** Keeps the first result of the request (a redelivery answers it again) and sends it to the requester. */
  async answer(id: string, replySubject: string | undefined, deleted: number): Promise<void> {
    const key = this.keys.controlResult(id);
    let result = JSON.stringify({ deleted });
    const set = await this.redis.set(key, result, { condition: 'NX', expiration: { type: 'EX', value: RESULT_TTL_S } });
    if (set === null) result = (await this.redis.get(key)) ?? result;
    if (replySubject) this.nc.publish(replySubject, result);
  }

  private async deleteEntity(company: string, namespace: 't' | 'm', entity: string): Promise<number> {
    // The company too: an id a deleted report freed may belong to another company by now.
    const where = `"c"=${influxQlString(encodeTagValue(company))} AND "n"=${influxQlString(encodeTagValue(namespace))} AND "e"=${influxQlString(encodeTagValue(entity))}`;
    const counts = await this.influx.query(
      MEASUREMENTS.map(
        (m) => `SELECT COUNT(${influxQlIdentifier(FIELD.timestamp)}) FROM ${influxQlIdentifier(m)} WHERE ${where}`,
      ).join('; '),
    );
    let deleted = 0;
    for (const result of counts)
      for (const series of result.series ?? []) deleted += Number(series.values[0]?.[1] ?? 0);
    if (deleted > 0) {
      await anchorMeasurements(this.influx, DROPPED);
      await this.influx.query(`DROP SERIES FROM ${DROPPED.map(influxQlIdentifier).join(', ')} WHERE ${where}`, {
        method: 'POST',
      });
    }
    // Logs belong to tasks only; a model may share a task's id string.
    if (namespace === 't') {
      const segments = await this.segments(entity);
      for (const key of segments) deleted += await this.redis.xLen(key);
      await this.redis.del([...segments, this.keys.logSegmentCount(entity)]);
    }
    // No events left: the next summary starts the kept figures afresh (its entity has no listing). One
    // MULTI (all in the company's slot): a reader never sees the listing gone while its version stays.
    await this.redis
      .multi()
      .del([
        this.keys.metricListing(company, namespace, entity),
        this.keys.imageIndex(company, namespace, entity),
        this.keys.imageIndexUrls(company, namespace, entity),
      ])
      .hDel(this.keys.entity(company, namespace, entity), [LAST_SCALAR_AT_FIELD, MAX_ITER_FIELD, LISTING_VERSION_FIELD])
      .exec();
    return deleted;
  }

  private async clearTaskLog(task: string, before?: number, include?: string[], exclude?: string[]): Promise<number> {
    if (before !== undefined && before <= 0) return 0;
    const segments = await this.segments(task);
    let deleted = 0;
    if (!include && !exclude) {
      if (before === undefined) {
        for (const key of segments) deleted += await this.redis.xLen(key);
        await this.redis.del([...segments, this.keys.logSegmentCount(task)]);
      } else {
        // Ids are <timestamp>-<seq>: MINID <before> drops exactly the entries older than it.
        for (const key of segments)
          deleted += await this.redis.xTrim(key, 'MINID', Math.floor(before), { strategyModifier: '=' });
      }
      return deleted;
    }
    const included = include ? new Set(include) : undefined;
    const excluded = new Set(exclude ?? []);
    const end = before === undefined ? '+' : String(Math.ceil(before) - 1);
    for (const key of segments) {
      let start = '-';
      for (;;) {
        const page = await this.redis.xRange(key, start, end, { COUNT: SCAN_PAGE });
        const doomed: string[] = [];
        for (const entry of page) {
          const metric = metricOf(String(entry.message.d ?? ''));
          if ((included === undefined || included.has(metric)) && !excluded.has(metric)) doomed.push(entry.id);
        }
        if (doomed.length > 0) deleted += await this.redis.xDel(key, doomed);
        if (page.length < SCAN_PAGE) break;
        start = `(${page[page.length - 1]!.id}`;
      }
    }
    return deleted;
  }

  private async segments(task: string): Promise<string[]> {
    const count = Number((await this.redis.get(this.keys.logSegmentCount(task))) ?? 1);
    return Array.from({ length: Math.max(1, count) }, (_, i) => this.keys.logSegment(task, i));
  }
}

function metricOf(eventJson: string): string {
  try {
    const metric = (JSON.parse(eventJson) as { metric?: unknown }).metric;
    return typeof metric === 'string' ? metric : '';
  } catch {
    return '';
  }
}
