/**
 * Every target's /metrics serves its stage's metrics (issue 15, item 1):
 * split processes export what an `all` process exports, each its own part,
 * all with the build info and the target label.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetName } from '../../shared/launcher/target.js';
import { startHarness, type Harness } from '../harness/service-harness.js';
import { httpRequest } from '../harness/http-request.js';
import { parsePrometheusText, type Scrape } from '../harness/prometheus-text.js';

const EXPECTED: Record<Exclude<TargetName, 'all'>, string[]> = {
  ingest: [
    'clearml_ingest_events_accepted_total',
    'clearml_ingest_events_refused_total',
    'clearml_ingest_received_bytes_total',
    'clearml_ingest_inflight_bytes',
    'clearml_ingest_inflight_limit_bytes',
    'clearml_ingest_publish_duration_seconds',
    'clearml_ingest_jetstream_messages_total',
    'clearml_grpc_calls_total',
    'clearml_grpc_call_duration_seconds',
    'clearml_grpc_streams_open',
    'clearml_grpc_chunk_acks_total',
    'clearml_jetstream_stream_bytes',
  ],
  writer: [
    'clearml_writer_events_stored_total',
    'clearml_writer_dead_letters_total',
    'clearml_writer_lag_seconds',
    'clearml_writer_ack_floor_sequence',
    'clearml_jetstream_stream_bytes',
  ],
  query: ['clearml_store_call_duration_seconds', 'clearml_store_call_errors_total', 'clearml_api_response_size_bytes'],
};
// Every process answers HTTP and times its own store calls (ingest: Redis; writer and query: Redis and InfluxDB).
const EVERYWHERE = [
  'clearml_build_info',
  'clearml_api_requests_total',
  'clearml_api_request_duration_seconds',
  'clearml_api_response_size_bytes',
  'clearml_store_call_duration_seconds',
  'clearml_store_call_errors_total',
  'process_cpu_seconds_total',
];

const harnesses = new Map<string, Harness>();

beforeAll(async () => {
  for (const target of ['ingest', 'writer', 'query'] as const) harnesses.set(target, await startHarness({ target }));
});
afterAll(async () => {
  for (const h of harnesses.values()) await h.stop();
});

async function scrape(h: Harness): Promise<Scrape> {
  const response = await httpRequest(`${h.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  return parsePrometheusText(response.text);
}

describe.each(['ingest', 'writer', 'query'] as const)('the %s target', (target) => {
  it("serves its stage's metrics, the build info and its target label", async () => {
    const s = await scrape(harnesses.get(target)!);
    for (const name of [...EXPECTED[target], ...EVERYWHERE]) expect(s.types.has(name), name).toBe(true);
    expect(s.samples.find((x) => x.name === 'clearml_build_info')?.labels.target).toBe(target);
    // Each process exports its own stage only.
    const others = Object.entries(EXPECTED)
      .filter(([t]) => t !== target)
      .flatMap(([, names]) => names)
      .filter((name) => !EXPECTED[target].includes(name) && !EVERYWHERE.includes(name));
    expect(others.filter((name) => s.types.has(name))).toEqual([]);
  });
});
