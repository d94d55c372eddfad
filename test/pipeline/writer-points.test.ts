// The writer stores points in InfluxDB with their arrival seq, and the identity rule (events.md §1.5) holds across and within messages.
import { describe, expect, it } from 'vitest';
import { arrivalSeq } from '../../shared/events/wire-format.js';
import { unique } from '../harness/service-harness.js';
import { eventRecord, scalarRecord, writerPipeline } from './writer-fixtures.js';

const pipeline = writerPipeline();

describe('points', () => {
  it('stores each measurement with q, time and fields', async () => {
    const task = unique('t');
    const seq = await pipeline.client.publish(task, [
      scalarRecord(task, 'loss', 'train', 3, 0.25, { worker: 'gpu-1', timestamp: 1_700_000_000_123 }),
      eventRecord({
        type: 'training_stats_vector',
        entity: task,
        metric: 'w',
        variant: 'l1',
        iter: 3,
        values: [1, 2.5],
      }),
      eventRecord({
        type: 'training_debug_image',
        entity: task,
        metric: 'img',
        variant: 'in',
        iter: 4,
        url: 'http://x/1.png',
      }),
      eventRecord({ type: 'plot', entity: task, metric: 'roc', variant: 'c', plotStr: '{"data": []}' }),
    ]);
    await pipeline.client.drained();
    const [scalar] = await pipeline.client.points('scalar', task);
    expect(scalar).toMatchObject({
      time: 3,
      y: 0.25,
      w: 'gpu-1',
      ts: 1_700_000_000_123,
      q: arrivalSeq(seq, 0),
      m: 'loss',
      v: 'train',
      n: 't',
    });
    expect((await pipeline.client.points('vector', task))[0]).toMatchObject({
      time: 3,
      y: '[1,2.5]',
      q: arrivalSeq(seq, 1),
    });
    expect((await pipeline.client.points('image', task))[0]).toMatchObject({
      time: 4,
      u: 'http://x/1.png',
      q: arrivalSeq(seq, 2),
    });
    // A plot is two points: its fields, and its body in the no-iteration bucket's series (docs/storage.md).
    const [plot] = await pipeline.client.points('plot', task, 'AND time < 0');
    expect(plot).toMatchObject({ len: '{"data": []}'.length, q: arrivalSeq(seq, 3) });
    expect(plot!.p ?? null).toBeNull();
    const [body] = await pipeline.client.points('plot_body', task, 'AND time < 0');
    expect(body).toMatchObject({ p: 'p{"data": []}', b: 'none', m: 'roc', v: 'c', n: 't' });
  });

  it('a later message overwrites an identity; within one message the later record wins', async () => {
    const task = unique('t');
    await pipeline.client.publish(task, [scalarRecord(task, 'm', 'v', 1, 1), scalarRecord(task, 'm', 'v', 2, 2)]);
    const second = await pipeline.client.publish(task, [
      scalarRecord(task, 'm', 'v', 1, 10, { worker: 'later' }),
      scalarRecord(task, 'm', 'v', 2, 20),
      scalarRecord(task, 'm', 'v', 2, 21),
    ]);
    await pipeline.client.drained();
    const rows = await pipeline.client.points('scalar', task);
    expect(rows.map((r) => [r.time, r.y, r.w])).toEqual([
      [1, 10, 'later'],
      [2, 21, 'w1'],
    ]);
    expect(rows[1]!.q).toBe(arrivalSeq(second, 2));
  });

  it('stores names that need tag encoding, and non-ASCII payloads', async () => {
    const task = unique('t');
    await pipeline.client.publish(task, [
      scalarRecord(task, 'a b,c=d', '', 1, 5),
      scalarRecord(task, 'größe ✓ 𝄞', 'v', 1, 6),
    ]);
    await pipeline.client.drained();
    const rows = await pipeline.client.points('scalar', task);
    expect(rows.map((r) => [r.m, r.y]).sort()).toEqual([
      ['a b,c=d', 5],
      ['größe ✓ 𝄞', 6],
    ]);
  });
});
