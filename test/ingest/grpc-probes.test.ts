// Issue 15 item 3: the gRPC server of a running service answers the standard
// health service, with a status that follows readiness (real stores), and
// server reflection, through the clients grpc_health_probe and grpcurl use.
import { connect, DiscardPolicy, RetentionPolicy, StorageType, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { healthProbe, reflectionProbe } from '../../ingest/grpc/grpc-probe-test-harness.js';
import { streamName } from '../../shared/events/wire-format.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';
import '../harness/stack-context.js';

const EVENTS = 'clearml.events.v1.EventsIngest';
const grpcPort = (h: Harness) => h.service.services.boundPorts.get('grpc')!;

describe('a running service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ target: 'all' });
  }, 60_000);
  afterAll(async () => h?.stop());

  it('answers Check and Watch with SERVING, for the server and for the events service', async () => {
    const probe = healthProbe(grpcPort(h));
    expect(await probe.check()).toBe('SERVING');
    expect(await probe.check(EVENTS)).toBe('SERVING');
    const watch = probe.watch();
    await eventually(
      async () => watch.statuses,
      (s) => s.length > 0,
      { timeoutMs: 5_000, what: 'first Watch answer' },
    );
    expect(watch.statuses).toEqual(['SERVING']);
    watch.cancel();
    probe.close();
  });

  it('lists the events service by reflection, with its three methods', async () => {
    const probe = reflectionProbe(grpcPort(h));
    expect(await probe.listServices()).toEqual(expect.arrayContaining([EVENTS, 'grpc.health.v1.Health']));
    for (const method of ['Add', 'AddBatch', 'StreamEvents']) {
      const [file] = await probe.fileContainingSymbol(`${EVENTS}.${method}`);
      expect(file?.service.find((s) => s.name === 'EventsIngest')?.method.map((m) => m.name)).toEqual([
        'Add',
        'AddBatch',
        'StreamEvents',
      ]);
    }
    probe.close();
  });
});

describe('a service whose events stream is full', () => {
  let nc: NatsConnection;
  let h: Harness;
  const prefix = unique('hfull');
  beforeAll(async () => {
    nc = await connect({ servers: inject('stack').natsUrl });
    // A limit of one message, set before the service starts (not one the configuration sets, so the service keeps it).
    await (
      await nc.jetstreamManager()
    ).streams.add({
      name: streamName(prefix),
      subjects: [`${prefix}.ev.*`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
      max_msgs: 1,
    });
    h = await startHarness({ target: 'ingest', env: { NATS_STREAM_PREFIX: prefix, GRPC_HEALTH_INTERVAL_MS: '100' } });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await (await nc.jetstreamManager()).streams.delete(streamName(prefix)).catch(() => undefined);
    await nc?.close();
  });

  it('turns NOT_SERVING on Check and Watch once the stream refuses events (what /ready says)', async () => {
    const probe = healthProbe(grpcPort(h));
    expect(await probe.check()).toBe('SERVING');
    const watch = probe.watch(EVENTS);
    await eventually(
      async () => watch.statuses,
      (s) => s.length > 0,
      { timeoutMs: 5_000, what: 'first Watch answer' },
    );
    const token = await h.login(h.credentials.a);
    const added = await h.call(
      'events.add',
      { type: 'log', task: unique('t-'), timestamp: Date.now(), msg: 'fills the stream' },
      { token },
    );
    expect(added.status).toBe(200);
    expect((await fetch(`${h.baseUrl}/ready`)).status).toBe(503);
    await eventually(
      async () => watch.statuses,
      (s) => s.length > 1,
      { timeoutMs: 10_000, what: 'NOT_SERVING on Watch' },
    );
    expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(await probe.check()).toBe('NOT_SERVING');
    watch.cancel();
    probe.close();
  });
});
