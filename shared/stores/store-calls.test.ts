import { describe, expect, it } from 'vitest';
import { Registry } from '../observability/metrics.js';
import { createStoreCalls } from './store-calls.js';
import { StoreUnavailableError } from './store-errors.js';

async function values(registry: Registry, name: string): Promise<Array<{ labels: object; value: number }>> {
  return (await registry.getSingleMetric(name)!.get()).values.map(({ labels, value }) => ({ labels, value }));
}

describe('store call timing', () => {
  it("records each call by store and operation, and counts failures but not the caller's own abort", async () => {
    const registry = new Registry();
    const calls = createStoreCalls(registry);
    expect(await calls.time('redis', 'HGET', async () => 'x')).toBe('x');
    await expect(
      calls.time('redis', 'HGET', async () => Promise.reject(new StoreUnavailableError('redis', 'down'))),
    ).rejects.toThrow('down');
    await expect(
      calls.time('influx', 'query', async () => Promise.reject(new DOMException('gone', 'AbortError'))),
    ).rejects.toThrow('gone');
    expect(await values(registry, 'clearml_store_call_errors_total')).toEqual([
      { labels: { store: 'redis', operation: 'HGET' }, value: 1 },
      { labels: { store: 'influx', operation: 'query' }, value: 0 },
    ]);
    const durations = (await registry.getSingleMetric('clearml_store_call_duration_seconds')!.get()).values as Array<{
      metricName?: string;
      labels: Record<string, unknown>;
      value: number;
    }>;
    const count = (operation: string) =>
      durations.find(
        (v) => v.metricName === 'clearml_store_call_duration_seconds_count' && v.labels.operation === operation,
      )?.value;
    expect([count('HGET'), count('query')]).toEqual([2, 1]);
  });
});
