// Writers share the partitions fairly through Redis leases, and hand them over without losing or reordering events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../shared/launcher/service.js';
import { targetModules } from '../../shared/launcher/target-modules.js';
import { createLogger } from '../../shared/observability/logger.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { PipelineClient, scalarRecord } from './writer-fixtures.js';
import { eventually } from '../harness/eventually.js';

let h: Harness;
let c: PipelineClient;
let second: RunningService | undefined;

beforeAll(async () => {
  h = await startHarness({ target: 'writer' });
  c = await PipelineClient.open(h.config);
});
afterAll(async () => {
  await second?.stop();
  await c?.close();
  await h?.stop();
});

const owned = async (service: RunningService) =>
  (await service.services.metrics.getSingleMetric('clearml_writer_partitions_owned')?.get())?.values[0]?.value ?? 0;

describe('partition sharing', () => {
  it(
    'a second writer takes half of the partitions, and gives them back when it stops',
    { timeout: 60_000 },
    async () => {
      const partitions = h.config.NATS_PARTITIONS;
      expect(await owned(h.service)).toBe(partitions);
      second = await startService({
        target: 'writer',
        config: h.config,
        logger: createLogger({ level: 'warn', name: 'second' }),
        modules: targetModules,
      });
      await eventually(
        async () => (await owned(h.service)) === partitions / 2 && (await owned(second!)) === partitions / 2,
        undefined,
        { timeoutMs: 30_000, everyMs: 200 },
      );

      // Events keep flowing, in order, through the hand-back.
      const task = unique('t');
      let published = 0;
      const publishing = (async () => {
        for (; published < 60; published++) {
          await c.publish(task, [scalarRecord(task, 'm', 'v', 1, published)]);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await second.stop();
      second = undefined;
      await publishing;
      await eventually(async () => (await owned(h.service)) === partitions, undefined, {
        timeoutMs: 30_000,
        everyMs: 200,
      });
      await c.drained();
      const [row] = await c.points('scalar', task);
      expect(row?.y).toBe(59); // the last report of the identity wins
    },
  );
});
