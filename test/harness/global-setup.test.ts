import { inject, it, expect } from 'vitest';
import { influxPing, natsInfo, redisPing } from '../../deploy/local-stack/readiness-probes.js';

it('provides a stack whose servers answer', async () => {
  const stack = inject('stack');
  expect(stack.dataDir).not.toBe('');
  expect((await natsInfo(stack.natsUrl, 5_000)).jetstream).toBe(true);
  await influxPing(stack.influxUrl, 5_000);
  await redisPing(stack.redisUrl, 5_000);
});
