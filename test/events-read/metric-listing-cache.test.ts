// Metric listings kept between reads (query/events/store/listing-cache.ts): a kept listing is answered
// only while the version the writer keeps beside it reads the same, and then costs the entity check
// alone; a new metric, a deletion or another company's call never gets a kept listing's answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntityAccess, type Namespace } from '../../query/events/store/entity-access.js';
import { ListingCache } from '../../query/events/store/listing-cache.js';
import { MetricListings, type ListingEntry } from '../../query/events/store/metric-listing.js';
import { StoreRecorder } from '../bench/query-bench-recorder.js';
import { scalar } from '../harness/event-builders.js';
import {
  expectError,
  type ServiceFixture,
  startServiceFixture,
  unique,
  untilCount,
} from '../harness/service-fixture.js';

let r: ServiceFixture;
beforeAll(async () => {
  r = await startServiceFixture();
}, 60_000);
afterAll(async () => r?.stop());

/** A reader of its own (its own kept listings), whose commands are recorded (bench:query's recorder). */
function reader() {
  const recorder = new StoreRecorder(r.h.config.INFLUX_URL);
  const client = recorder.recordingClient(r.redis);
  const prefix = r.h.config.REDIS_KEY_PREFIX;
  const listings = new MetricListings(() => client, prefix, new ListingCache(1 << 20));
  const entities = new EntityAccess(client, prefix);
  const sent: string[] = [];
  return {
    /** The commands of the last read, in the order they were sent (MULTI blocks by their commands). */
    sent,
    async read(ids: string[], namespace: Namespace = 't'): Promise<Array<readonly ListingEntry[]>> {
      let read: ReadonlyArray<readonly ListingEntry[]> = [];
      const steps = await recorder.record(async () => {
        read = await listings.readable(entities, r.company('a'), namespace, ids, ids);
      });
      sent.length = 0;
      for (const step of steps)
        sent.push(
          step.kind === 'multi'
            ? `MULTI(${step.commands.map(([name]) => name).join(',')})`
            : step.kind === 'redis'
              ? step.method
              : step.kind,
        );
      return [...read];
    },
  };
}

const names = (entries: readonly ListingEntry[]) => entries.map((e) => `${e.type}/${e.metric}/${e.variant}`).sort();

describe('metric listings kept between reads', () => {
  it('cost the entity check alone while unchanged, and are read again once a metric is added', async () => {
    const task = unique('kept-');
    await r.add([scalar(task, 'loss', 'train', 1, 1), scalar(task, 'loss', 'val', 1, 2)]);
    await untilCount(r, task, 2);
    const rd = reader();

    const [first] = await rd.read([task]);
    expect(names(first!)).toEqual(['training_stats_scalar/loss/train', 'training_stats_scalar/loss/val']);
    expect(rd.sent.sort()).toEqual(['MULTI(hGet,sMembers)', 'hmGet']);

    const [second] = await rd.read([task]);
    expect(second).toEqual(first);
    expect(rd.sent).toEqual(['hmGet']);

    // More events of the same series add no member: the version stays, the kept listing is answered.
    await r.add([scalar(task, 'loss', 'train', 2, 3)]);
    await untilCount(r, task, 3);
    expect((await rd.read([task]))[0]).toEqual(first);
    expect(rd.sent).toEqual(['hmGet']);

    await r.add([scalar(task, 'acc', 'val', 2, 0.5)]);
    await untilCount(r, task, 4);
    const [third] = await rd.read([task]);
    expect(names(third!)).toEqual([
      'training_stats_scalar/acc/val',
      'training_stats_scalar/loss/train',
      'training_stats_scalar/loss/val',
    ]);
    expect(rd.sent).toEqual(['hmGet', 'MULTI(hGet,sMembers)']);
    expect(await rd.read([task])).toEqual([third]);
    expect(rd.sent).toEqual(['hmGet']);
  });

  it('read several entities in one MULTI, kept ones by the check alone', async () => {
    const [a, b] = [unique('ka-'), unique('kb-')];
    await r.add([scalar(a, 'm1', 'v', 1, 1), scalar(b, 'm2', 'v', 1, 1)]);
    await untilCount(r, a, 1);
    await untilCount(r, b, 1);
    const rd = reader();
    await rd.read([a]);
    const [la, lb] = await rd.read([a, b]);
    expect(names(la!)).toEqual(['training_stats_scalar/m1/v']);
    expect(names(lb!)).toEqual(['training_stats_scalar/m2/v']);
    // The entity check of two ids is a MULTI of HMGETs; only b's listing is read.
    expect(rd.sent.sort()).toEqual(['MULTI(hGet,sMembers)', 'MULTI(hmGet,hmGet)']);
  });

  it('answer an empty listing after the events were deleted', async () => {
    const task = unique('kdel-');
    await r.add([scalar(task, 'loss', 'a', 1, 1)]);
    await untilCount(r, task, 1);
    const rd = reader();
    await rd.read([task]);
    await rd.read([task]);
    expect(rd.sent).toEqual(['hmGet']);
    expect(await r.data('events.delete_for_task', { task })).toEqual({ deleted: 1 });
    expect(await rd.read([task])).toEqual([[]]);
    // Deleted with the listing, the version no longer names a kept one: new events are listed.
    await r.add([scalar(task, 'loss', 'b', 1, 1)]);
    await untilCount(r, task, 1);
    expect((await rd.read([task])).map(names)).toEqual([['training_stats_scalar/loss/b']]);
  });

  it('keep the task and the model of one id apart', async () => {
    const id = unique('kboth-');
    await r.add([scalar(id, 'as-task', 'v', 1, 1)]);
    await r.add([scalar(id, 'as-model', 'v', 1, 1, { model_event: true })]);
    await untilCount(r, id, 1);
    await untilCount(r, id, 1, { model_events: true });
    const rd = reader();
    for (let i = 0; i < 2; i++) {
      expect((await rd.read([id], 't')).map(names)).toEqual([['training_stats_scalar/as-task/v']]);
      expect((await rd.read([id], 'm')).map(names)).toEqual([['training_stats_scalar/as-model/v']]);
    }
  });
});

describe('metric listings kept by the service', () => {
  it('show a metric added after they were read, on the reads that follow it', async () => {
    const task = unique('svc-');
    await r.add([scalar(task, 'loss', 'train', 1, 1)]);
    await untilCount(r, task, 1);
    // Each answer is computed once per listing read (query/events/metrics/listing-views.ts).
    for (let i = 0; i < 3; i++) {
      expect((await r.data('events.get_task_metrics', { tasks: [task] })).metrics).toEqual([
        { task, metrics: ['loss'] },
      ]);
      expect((await r.data('events.get_multi_task_metrics', { tasks: [task] })).metrics).toEqual([
        { metric: 'loss', variants: ['train'] },
      ]);
      expect((await r.data('events.get_scalar_metrics_and_variants', { task })).metrics).toEqual({ loss: ['train'] });
    }
    await r.add([scalar(task, 'acc', 'train', 1, 1)]);
    await untilCount(r, task, 2);
    // Stored, so listed: the writer gave the listing its new version in the script that stored the member.
    expect((await r.data('events.get_task_metrics', { tasks: [task] })).metrics).toEqual([
      { task, metrics: ['acc', 'loss'] },
    ]);
    expect((await r.data('events.get_multi_task_metrics', { tasks: [task] })).metrics).toEqual([
      { metric: 'acc', variants: ['train'] },
      { metric: 'loss', variants: ['train'] },
    ]);
    const variants = await r.data('events.get_scalar_metrics_and_variants', { task });
    expect(variants.metrics).toEqual({ acc: ['train'], loss: ['train'] });
  });

  it("never answer another company's call with a kept listing", async () => {
    const task = unique('own-');
    await r.add([scalar(task, 'secret', 'v', 1, 1)]);
    await untilCount(r, task, 1);
    for (let i = 0; i < 2; i++) await r.data('events.get_task_metrics', { tasks: [task] });
    for (const operation of ['events.get_task_metrics', 'events.get_multi_task_metrics'])
      expectError(await r.call(operation, { tasks: [task] }, r.tokenB), 400, 101);
    expectError(await r.call('events.get_scalar_metrics_and_variants', { task }, r.tokenB), 400, 101);
  });
});
