/**
 * The property that every event the normaliser accepts is one the stores
 * can take, as one assertion for property tests of any transport: its
 * InfluxDB line parses under influxd's rules and reads back as the event, a
 * log's stream id and JSON are valid, and its summary is finite and
 * well-formed for the writer's Lua.
 */
import { expect } from 'vitest';
import { extractSourceUrls, plotLength } from './plot-fields.js';
import { decodeTagValue, iterTimeText, plotBodyBucket } from '../../shared/events/storage-layout.js';
import { decodeRecords, type EntitySummary } from '../../shared/events/wire-format.js';
import { checkLogBody } from '../writer/record-checks.js';
import { EventEncoder } from './event-encoder.js';
import type { NormalizedEvent } from './event-normalizer.js';
import { parsePoints } from './line-protocol-test-harness.js';
import { EntitySummaryBuilder } from './request-summary.js';

const RECEIVED_AT = 1_718_000_000_000;

/** The one record the session would encode for an accepted event (plots uncompressed). */
export function encodeAccepted(event: NormalizedEvent, company = 'company-a'): { kind: string; body: string } {
  const encoder = new EventEncoder(company, RECEIVED_AT);
  const text = event.plotStr ?? '';
  const frame =
    event.type === 'log'
      ? encoder.log(event)
      : event.type === 'plot'
        ? encoder.plotPoint(event, {
            stored: `p${text}`,
            length: plotLength(text),
            sourceUrls: extractSourceUrls(text),
          })
        : encoder.point(event);
  const records = [...decodeRecords(frame)];
  expect(records).toHaveLength(1);
  return records[0]!;
}

const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

function checkPoint(event: NormalizedEvent, body: string): void {
  const points = parsePoints(body);
  // A plot's record holds its body's point before its own (docs/storage.md).
  expect(points).toHaveLength(event.type === 'plot' ? 2 : 1);
  const point = points[points.length - 1]!;
  for (const p of points) {
    expect(decodeTagValue(p.tags.get('c')!)).toBe('company-a');
    expect(decodeTagValue(p.tags.get('e')!)).toBe(event.entity);
    expect(decodeTagValue(p.tags.get('m')!)).toBe(event.metric);
    expect(decodeTagValue(p.tags.get('v')!)).toBe(event.variant);
    expect(p.tags.get('n')).toBe(event.namespace);
    expect(p.time).toBe(BigInt(iterTimeText(event.iter)));
  }
  if (event.key !== undefined) expect(decodeTagValue(point.tags.get('k')!)).toBe(event.key);
  expect(point.fields.get('ts')).toBe(BigInt(event.timestamp));
  expect(point.fields.get('w')).toBe(event.worker);
  if (event.type === 'training_stats_scalar') expect(point.fields.get('y')).toBe(event.value);
  if (event.type === 'training_stats_vector') expect(JSON.parse(point.fields.get('y') as string)).toEqual(event.values);
  if (event.type === 'training_debug_image' && event.url !== undefined) expect(point.fields.get('u')).toBe(event.url);
  if (event.type === 'plot') {
    const body = points[0]!;
    expect(body.measurement).toBe('plot_body');
    expect(body.tags.get('b')).toBe(plotBodyBucket(event.iter));
    expect([...body.fields]).toEqual([['p', `p${event.plotStr}`]]);
    expect(point.measurement).toBe('plot');
    expect(point.fields.has('p')).toBe(false);
  }
}

function checkLog(event: NormalizedEvent, body: string): void {
  const record = checkLogBody(body);
  if (typeof record === 'string') throw new Error(`log record: ${record}`);
  const [company, task, timestamp, json] = record;
  expect([company, task]).toEqual(['company-a', event.entity]);
  // The writer's stream id is `<timestamp>-<seq>`: Redis wants unsigned 64-bit ms, its Lua reads them as doubles.
  expect(Number.isSafeInteger(timestamp) && timestamp >= 0).toBe(true);
  expect(`${timestamp}-1`).toMatch(/^\d+-\d+$/);
  const stored = JSON.parse(json) as Record<string, unknown>;
  expect(stored).toMatchObject({
    timestamp: event.timestamp,
    metric: event.metric,
    variant: event.variant,
    worker: event.worker,
  });
  if (event.msg !== undefined) expect(stored.msg).toBe(event.msg);
  expect(LONE_SURROGATE_ESCAPE.test(json)).toBe(false);
}

function checkSummary(event: NormalizedEvent): void {
  const builder = new EntitySummaryBuilder('company-a', event.namespace, event.entity);
  builder.add(event);
  const json = JSON.stringify(builder.build('u', RECEIVED_AT));
  // Read by the writer's Lua (cjson): no lone surrogates, no non-finite numbers (JSON would print null).
  expect(LONE_SURROGATE_ESCAPE.test(json)).toBe(false);
  const summary = JSON.parse(json) as EntitySummary;
  for (const stats of summary.scalars) {
    for (const n of [
      stats.value,
      stats.min,
      stats.max,
      stats.first,
      stats.sum,
      stats.mean,
      stats.count,
      stats.timestamp,
    ])
      expect(Number.isFinite(n)).toBe(true);
  }
}

/** Asserts that an accepted event encodes into what the stores take. */
export function expectStorable(event: NormalizedEvent): void {
  const record = encodeAccepted(event);
  if (record.kind === 'I') checkPoint(event, record.body);
  else checkLog(event, record.body);
  checkSummary(event);
}
