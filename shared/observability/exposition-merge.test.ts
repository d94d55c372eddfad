import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { mergeExpositions } from './exposition-merge.js';

function registry(build: (r: Registry) => void): Registry {
  const r = new Registry();
  build(r);
  return r;
}

describe('mergeExpositions', () => {
  it('appends the families of the other thread, each series once, histograms whole', async () => {
    const main = registry((r) => {
      new Counter({ name: 'clearml_ingest_events_total', help: 'ingested', registers: [r] }).inc(3);
      new Gauge({ name: 'clearml_jetstream_stream_bytes', help: 'fill', registers: [r] }).set(10);
    });
    const writer = registry((r) => {
      new Gauge({ name: 'clearml_jetstream_stream_bytes', help: 'fill', registers: [r] }).set(10);
      new Histogram({ name: 'clearml_writer_batch_seconds', help: 'batch', buckets: [1], registers: [r] }).observe(0.5);
      new Counter({ name: 'clearml_writer_events_total', help: 'stored', registers: [r] }).inc(2);
    });
    const merged = mergeExpositions(await main.metrics(), await writer.metrics());

    expect(merged.match(/^clearml_jetstream_stream_bytes /gm)).toHaveLength(1);
    expect(merged).toMatch(/^clearml_ingest_events_total 3$/m);
    expect(merged).toMatch(/^clearml_writer_events_total 2$/m);
    expect(merged).toMatch(/^clearml_writer_batch_seconds_bucket\{le="1"\} 1$/m);
    expect(merged).toMatch(/^clearml_writer_batch_seconds_count 1$/m);
    for (const name of [
      'clearml_ingest_events_total',
      'clearml_jetstream_stream_bytes',
      'clearml_writer_batch_seconds',
      'clearml_writer_events_total',
    ]) {
      expect(merged.match(new RegExp(`^# TYPE ${name} `, 'gm'))).toHaveLength(1);
    }
  });

  it('keeps the first exposition as it is when the other adds nothing', () => {
    const first = '# HELP a x\n# TYPE a counter\na 1\n';
    expect(mergeExpositions(first, '')).toBe(first);
    expect(mergeExpositions(first, '# HELP a x\n# TYPE a counter\na 5\n')).toBe(first);
  });
});
