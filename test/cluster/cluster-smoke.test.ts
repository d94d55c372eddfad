// The cluster shape (issue 12): the split deployment on a 3-node NATS
// cluster (streams with 3 replicas) and a Redis Cluster (3 masters, 1 replica
// each), started by the code of `npm run start:cluster`, serves the public
// API through nginx: auth.login and reads go to the query processes,
// events.add_batch to the ingest processes, gRPC StreamEvents to ingest.
import { create } from '@bufbuild/protobuf';
import {
  credentials as grpcCredentials,
  makeClientConstructor,
  Metadata,
  type ClientDuplexStream,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import { EventChunkSchema, type ChunkAck } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { StreamInbox } from '../faults/stream-inbox.js';
import { startClusterHarness, type ClusterHarness } from '../harness/cluster-harness.js';
import { unique } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';

let h: ClusterHarness;
let token: string;
let startMs: number;

beforeAll(async () => {
  const started = Date.now();
  h = await startClusterHarness();
  startMs = Date.now() - started;
  token = await h.login(h.credentials.a);
}, 180_000);
afterAll(() => h?.stop(), 60_000);

const histogram = (task: string) => h.call('events.scalar_metrics_iter_histogram', { task }, { token });

describe('the cluster shape through nginx', { timeout: 90_000 }, () => {
  it('starts every process of the shape', () => {
    expect(h.stack.labels().sort()).toEqual(
      [
        'influxdb',
        'ingest-1',
        'ingest-2',
        'nats-1',
        'nats-2',
        'nats-3',
        'nginx',
        'query-1',
        'query-2',
        'redis-1',
        'redis-2',
        'redis-3',
        'redis-4',
        'redis-5',
        'redis-6',
        'writer-1',
        'writer-2',
      ].sort(),
    );
    for (const label of h.stack.labels()) expect(h.stack.pidOf(label), label).toBeGreaterThan(0);
    console.log(`cluster shape started in ${startMs} ms`);
  });

  it('logs in, ingests over HTTP, and reads the events back', async () => {
    const task = unique('http-');
    const events = [
      ...[1, 2, 3].map((iter) => ({
        type: 'training_stats_scalar',
        task,
        iter,
        metric: 'loss',
        variant: 'train',
        value: iter / 10,
        timestamp: 1_700_000_000_000 + iter,
      })),
      ...[1, 2].map((iter) => ({
        type: 'log',
        task,
        iter,
        msg: `line ${iter}`,
        level: 'info',
        timestamp: 1_700_000_000_000 + iter,
      })),
    ];
    const added = await h.call('events.add_batch', undefined, {
      token,
      headers: { 'content-type': 'application/json-lines' },
      rawBody: events.map((e) => JSON.stringify(e)).join('\n'),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data).toMatchObject({ added: 5, errors: 0 });

    const scalars = await eventually(
      () => histogram(task),
      (r) => r.body?.data?.loss?.train?.y?.length === 3,
      { what: 'scalars of the HTTP batch', timeoutMs: 20_000, everyMs: 200 },
    );
    expect(scalars.body.data.loss.train).toMatchObject({ x: [1, 2, 3], y: [0.1, 0.2, 0.3] });
    const log = await eventually(
      () => h.call('events.get_task_log', { task, batch_size: 10 }, { token }),
      (r) => r.body?.data?.total === 2,
      { what: 'log lines of the HTTP batch', timeoutMs: 20_000, everyMs: 200 },
    );
    expect(log.body.data.events.map((e: { msg: string }) => e.msg).sort()).toEqual(['line 1', 'line 2']);
  });

  it('ingests a StreamEvents chunk over gRPC through nginx, readable through the query processes', async () => {
    const task = unique('grpc-');
    const Client = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
    const client = new Client(h.grpcAddress, grpcCredentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const stream = (
      client as unknown as { StreamEvents(md: Metadata): ClientDuplexStream<unknown, ChunkAck> }
    ).StreamEvents(metadata);
    const inbox = new StreamInbox(stream as unknown as ClientDuplexStream<Buffer, ChunkAck>);
    stream.write(
      create(EventChunkSchema, {
        chunkId: 1n,
        events: [1, 2].map((iter) => ({
          type: 'training_stats_scalar',
          task,
          iter: BigInt(iter),
          metric: 'loss',
          variant: 'train',
          value: iter,
        })),
      }),
    );
    const answer = await inbox.next(20_000);
    stream.end();
    await inbox.closed(5_000);
    client.close();
    expect(answer?.kind).toBe('ack');
    expect(answer?.kind === 'ack' && answer.ack).toMatchObject({ chunkId: 1n, added: 2, errors: 0 });

    const scalars = await eventually(
      () => histogram(task),
      (r) => r.body?.data?.loss?.train?.y?.length === 2,
      { what: 'scalars of the gRPC chunk', timeoutMs: 20_000, everyMs: 200 },
    );
    expect(scalars.body.data.loss.train).toMatchObject({ x: [1, 2], y: [1, 2] });
  });

  it('routes to every ingest and query process: each answers behind the one URL', async () => {
    for (const [label, url] of Object.entries(h.stack.serviceUrls)) {
      const ready = await fetch(`${url}/ready`);
      expect(ready.status, label).toBe(200);
    }
    // Another company sees nothing of company A's task through the same URL.
    const other = await h.login(h.credentials.b);
    const refused = await h.call('events.get_task_log', { task: 'no-such-task' }, { token: other });
    expect(refused.status).toBe(400);
  });
});
