// The standard health service and server reflection on the gRPC server
// (issue 15), through the clients grpc_health_probe and grpcurl would use.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, until, type TestServer } from './grpc-ingest-test-harness.js';
import { healthProbe, reflectionProbe } from './grpc-probe-test-harness.js';

const EVENTS = 'clearml.events.v1.EventsIngest';
let t: TestServer | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('grpc.health.v1.Health', () => {
  it('Check answers SERVING for the server and the events service, NOT_FOUND for another name', async () => {
    t = await startTestServer();
    const probe = healthProbe(t.port);
    expect(await probe.check()).toBe('SERVING');
    expect(await probe.check(EVENTS)).toBe('SERVING');
    await expect(probe.check('no.such.Service')).rejects.toMatchObject({ code: 5 });
    probe.close();
  });

  it('follows readiness: NOT_SERVING while the process is not ready, Watch sees every change', async () => {
    let ready = false;
    t = await startTestServer({ ready: async () => ready, healthIntervalMs: 20 });
    const probe = healthProbe(t.port);
    expect(await probe.check()).toBe('NOT_SERVING');
    const watch = probe.watch(EVENTS);
    await until(() => watch.statuses.length === 1, 'first Watch answer');
    ready = true;
    await until(() => watch.statuses.length === 2, 'SERVING on Watch');
    ready = false;
    await until(() => watch.statuses.length === 3, 'NOT_SERVING on Watch');
    expect(watch.statuses).toEqual(['NOT_SERVING', 'SERVING', 'NOT_SERVING']);
    watch.cancel();
    probe.close();
  });

  it('a readiness read that throws counts as not ready', async () => {
    t = await startTestServer({
      ready: async () => {
        throw new Error('redis: connection refused');
      },
    });
    const probe = healthProbe(t.port);
    expect(await probe.check()).toBe('NOT_SERVING');
    probe.close();
  });

  it('stop tells Watch calls NOT_SERVING and ends them instead of waiting out the grace period', async () => {
    t = await startTestServer();
    const probe = healthProbe(t.port);
    const watch = probe.watch();
    await until(() => watch.statuses.length === 1, 'first Watch answer');
    const started = Date.now();
    await t.stop(5_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await watch.ended).toBe(0);
    expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    probe.close();
  });
});

describe('server reflection', () => {
  it('lists the events and health services and describes the events methods', async () => {
    t = await startTestServer();
    const probe = reflectionProbe(t.port);
    expect(await probe.listServices()).toEqual(expect.arrayContaining([EVENTS, 'grpc.health.v1.Health']));
    const [file] = await probe.fileContainingSymbol(EVENTS);
    const service = file?.service.find((s) => `${file.package}.${s.name}` === EVENTS);
    expect(
      service?.method.map((m) => [m.name, m.inputType, m.outputType, m.clientStreaming, m.serverStreaming]),
    ).toEqual([
      ['Add', '.clearml.events.v1.Event', '.clearml.events.v1.AddResult', false, false],
      ['AddBatch', '.clearml.events.v1.EventBatch', '.clearml.events.v1.AddResult', true, false],
      ['StreamEvents', '.clearml.events.v1.EventChunk', '.clearml.events.v1.ChunkAck', true, true],
    ]);
    expect(file?.messageType.map((m) => m.name)).toEqual(
      expect.arrayContaining(['Event', 'EventBatch', 'EventChunk', 'ChunkAck', 'AddResult']),
    );
    probe.close();
  });
});
