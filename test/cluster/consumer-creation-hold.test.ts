// A writer does not recreate a partition's consumer while a replica of the events stream is down
// (ingest/writer/partition-consumer.ts, CONSUMER_CREATION_HOLD_MS): nats-server 2.9 leaves a consumer
// recreated meanwhile stranded on that node when it comes back (docs/faults.md, "Known limit").
// Once the hold is over it recreates anyway, and with every replica back it recreates at once.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsCluster, type NatsCluster } from '../../deploy/cluster-stack/nats-cluster.js';
import { findFreePort } from '../../deploy/local-stack/free-port.js';
import { ensureStackPackages } from '../../deploy/local-stack/install-packages.js';
import type { ServerProcess } from '../../deploy/local-stack/server-process.js';
import { loadConfig } from '../../shared/config/config.js';
import { ensureEventStreams } from '../../shared/events/event-streams.js';
import { consumerName, partitionSubject, streamName } from '../../shared/events/wire-format.js';
import { preparePartitionConsumer, StreamNotAtFullStrength } from '../../ingest/writer/partition-consumer.js';
import { writerSettings } from '../../ingest/writer/writer-settings.js';
import { eventually } from '../harness/eventually.js';

const settings = writerSettings(loadConfig({ NATS_STREAM_PREFIX: 'hold', NATS_STREAM_REPLICAS: '3' }));
const stream = streamName(settings.streamPrefix);
const consumer = consumerName(settings.streamPrefix, 0);

let dataDir: string;
let cluster: NatsCluster;
const children: ServerProcess[] = [];
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-consumer-hold-'));
  const binaries = await ensureStackPackages(() => {});
  const ports = [];
  for (let i = 0; i < 3; i++)
    ports.push({ client: await findFreePort(), route: await findFreePort(), monitor: await findFreePort() });
  cluster = await startNatsCluster({
    binary: binaries.nats!,
    dataDir,
    ports,
    maxFileStoreBytes: 1 << 30,
    // The test recreates the consumer while a node is down, the trigger of nats-server 2.9.10's
    // stranded replica (docs/faults.md, "Known limit"): that node's /healthz may then never clear.
    // Its stream replicas are awaited below (`behind`), which is what the writer's hold looks at.
    readiness: 'server',
    context: { timeoutMs: 60_000, restartOnExit: false, log: () => {}, onSpawned: (child) => children.push(child) },
  });
  nc = await connect({ servers: cluster.url.split(',') });
  jsm = await nc.jetstreamManager({ timeout: 20_000 });
  // A cluster just started answers no JetStream request until it has elected its meta leader: such a
  // request times out (once after 20 s in a CI run) and is sent again.
  await eventually(
    () => ensureEventStreams(jsm, settings.streams).then(() => true),
    (ok) => ok,
    { timeoutMs: 60_000, retryErrors: true, what: 'the events stream created on the cluster' },
  );
}, 150_000);

afterAll(async () => {
  await nc?.close();
  await Promise.all(children.map((child) => child.stop()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A message delivered and not acknowledged: the next owner must recreate the consumer. */
async function leaveOneUnacknowledged(): Promise<void> {
  await nc.jetstream().publish(partitionSubject(settings.streamPrefix, 0), 'x');
  const messages = await nc.jetstream().fetch(stream, consumer, { batch: 1, expires: 5_000 });
  for await (const _ of messages) break;
  await eventually(
    () => jsm.consumers.info(stream, consumer),
    (info) => info.num_ack_pending === 1,
    { timeoutMs: 10_000, what: 'one message pending' },
  );
}

const behind = async () =>
  ((await jsm.streams.info(stream)).cluster?.replicas ?? []).filter((r) => r.offline || !r.current).length;

describe('preparePartitionConsumer on a replicated stream', () => {
  it('holds a recreation while a stream replica is down, recreates once the hold is over, and at once when all are back', async () => {
    // Every replica current: created at once.
    await eventually(behind, (n) => n === 0, { timeoutMs: 30_000, what: 'stream replicas current' });
    await eventually(
      () => preparePartitionConsumer(jsm, settings, 0, Date.now() + 30_000).then(() => true),
      (ok) => ok,
      { timeoutMs: 60_000, what: 'the consumer created' },
    );
    await leaveOneUnacknowledged();
    const created = (await jsm.consumers.info(stream, consumer)).created;

    // A node goes down that leads neither the stream nor the consumer: a new consumer leader may not
    // yet know of the delivery (nats-server replicates it after sending the message), and then sees
    // nothing to recreate. A request in flight to the killed node is lost: `behind` retries it.
    const streamLeader = (await jsm.streams.info(stream)).cluster?.leader;
    const consumerLeader = (await jsm.consumers.info(stream, consumer)).cluster?.leader;
    const down = cluster.nodes.find((node) => node.label !== streamLeader && node.label !== consumerLeader)!;
    await down.process.stop();
    await eventually(behind, (n) => n > 0, {
      timeoutMs: 30_000,
      retryErrors: true,
      what: `${down.label} seen as down`,
    });

    await expect(preparePartitionConsumer(jsm, settings, 0, Date.now() + 30_000)).rejects.toBeInstanceOf(
      StreamNotAtFullStrength,
    );
    const held = await jsm.consumers.info(stream, consumer);
    expect([held.created, held.num_ack_pending]).toEqual([created, 1]);

    // The hold over (a node down for long): recreated anyway, its pending message replayed first.
    const late = await preparePartitionConsumer(jsm, settings, 0, Date.now() - 1);
    expect(late.nextConsumerSeq).toBe(1);
    const recreated = await jsm.consumers.info(stream, consumer);
    expect(recreated.created).not.toBe(created);
    expect(recreated.num_ack_pending).toBe(0);

    // Every replica back: a recreation goes ahead within the hold.
    await down.process.start();
    await eventually(behind, (n) => n === 0, {
      timeoutMs: 60_000,
      retryErrors: true,
      what: `${down.label} current again`,
    });
    await leaveOneUnacknowledged();
    const again = await preparePartitionConsumer(jsm, settings, 0, Date.now() + 30_000);
    expect(again.nextConsumerSeq).toBe(1);
    expect((await jsm.consumers.info(stream, consumer)).num_ack_pending).toBe(0);
  }, 180_000);
});
