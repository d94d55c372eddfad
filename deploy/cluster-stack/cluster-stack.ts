/**
 * The whole split deployment on one machine, what `npm run start:cluster`
 * runs and what the tests start for the cluster pass: a 3-node NATS cluster
 * with JetStream, a Redis Cluster of 3 masters with one replica each,
 * InfluxDB, N ingest, writer and query processes of the one launcher, and
 * nginx as the one base URL (HTTP and gRPC). Every process is supervised
 * (restarted on its port when asked) and stopped by pid. Data, configs and
 * logs are under one directory.
 */
import { join, resolve } from 'node:path';
import { findFreePort, isPortFree } from '../local-stack/free-port.js';
import { ensureDebianPackages, ensureStackPackages, findBinary } from '../local-stack/install-packages.js';
import { DEFAULT_SERVER_OPTIONS, type ServerOptions } from '../local-stack/server-configs.js';
import type { ServerProcess } from '../local-stack/server-process.js';
import { startServer } from '../local-stack/start-server.js';
import { SupervisedServer } from '../local-stack/supervised-server.js';
import { startNatsCluster, type NatsNodePorts } from './nats-cluster.js';
import { startNginx } from './nginx-proxy.js';
import { startRedisCluster, type RedisNodePorts } from './redis-cluster.js';
import { answersReady, launcherArgs, repositoryRoot, type ServiceTarget } from './service-target.js';
import { startSupervised, type SupervisionContext } from './supervised-process.js';

export interface ClusterStackOptions {
  dataDir: string;
  /** Fixed ports (`npm run start:cluster`); what is not given is picked free. */
  ports?: { api?: number; grpc?: number; natsBase?: number; redisBase?: number; influx?: number };
  /** Where nginx listens (API_HOST); the rest binds 127.0.0.1. */
  listenHost?: string;
  /** Configuration of the service processes beyond the store URLs and ports (credentials, secret, prefixes, log level). */
  serviceEnv: Record<string, string>;
  processes?: Partial<Record<ServiceTarget, number>>;
  /** V8 heap cap of each service process, MiB (none by default). */
  maxHeapMb?: number;
  settings?: Partial<ServerOptions>;
  restartOnExit?: boolean;
  log?: (line: string) => void;
  /** Per process; default 60000. */
  readyTimeoutMs?: number;
}

export interface ClusterStack {
  /** The one base URL (nginx). */
  baseUrl: string;
  /** host:port of nginx's gRPC listener. */
  grpcAddress: string;
  natsUrl: string;
  redisUrl: string;
  influxUrl: string;
  /** The service processes' own URLs, by label (ingest-1, query-2, ...). */
  serviceUrls: Readonly<Record<string, string>>;
  /** Every process started (restarts included). */
  readonly pids: number[];
  /** nats-1..3, redis-1..6, influxdb, ingest-<n>, writer-<n>, query-<n>, nginx. */
  labels(): string[];
  pidOf(label: string): number | undefined;
  /** The Redis node's port (redis-<n>). */
  redisPortOf(label: string): number;
  /** Stops one process and keeps it stopped (no restart) until startServer(label); the fault bench holds a killed node down with it. */
  stopServer(label: string): Promise<void>;
  /** Starts a stopped (or dead) process again on its port; resolves once it answers. */
  startServer(label: string): Promise<void>;
  /** Stops every process, services first, then the stores; idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_PROCESSES: Record<ServiceTarget, number> = { ingest: 2, writer: 2, query: 2 };
const NATS_NODES = 3;
const REDIS_NODES = 6;

const portOr = async (base: number | undefined, offset: number) => (base ? base + offset : findFreePort());

export async function startClusterStack(options: ClusterStackOptions): Promise<ClusterStack> {
  const dataDir = resolve(options.dataDir);
  const log = options.log ?? (() => {});
  const settings: ServerOptions = { ...DEFAULT_SERVER_OPTIONS, ...options.settings };
  const fixed = options.ports ?? {};
  const listenHost = options.listenHost ?? '127.0.0.1';
  const started: ServerProcess[] = [];
  const pids: number[] = [];
  const context: SupervisionContext = {
    timeoutMs: options.readyTimeoutMs ?? 60_000,
    restartOnExit: options.restartOnExit ?? false,
    log,
    onSpawned: (child) => {
      started.push(child);
      pids.push(child.pid);
    },
  };

  const natsPorts: NatsNodePorts[] = [];
  for (let i = 0; i < NATS_NODES; i++) {
    natsPorts.push({
      client: await portOr(fixed.natsBase, i),
      route: await portOr(fixed.natsBase, 10 + i),
      monitor: await portOr(fixed.natsBase, 20 + i),
    });
  }
  const redisPorts: RedisNodePorts[] = [];
  for (let i = 0; i < REDIS_NODES; i++)
    redisPorts.push({ port: await portOr(fixed.redisBase, i), bus: await portOr(fixed.redisBase, 10_000 + i) });
  const apiPort = fixed.api || (await findFreePort());
  const grpcPort = fixed.grpc || (await findFreePort());
  const fixedPorts = [
    ...(fixed.natsBase ? natsPorts.flatMap((p) => [p.client, p.route, p.monitor]) : []),
    ...(fixed.redisBase ? redisPorts.flatMap((p) => [p.port, p.bus]) : []),
    ...(fixed.api ? [apiPort] : []),
    ...(fixed.grpc ? [grpcPort] : []),
    ...(fixed.influx ? [fixed.influx] : []),
  ];
  const busy = [];
  for (const port of fixedPorts) if (!(await isPortFree(port))) busy.push(port);
  if (busy.length > 0)
    throw new Error(
      `ports in use: ${busy.join(', ')}. Stop what listens there (another npm start or start:cluster?), or choose other ports (API_PORT, GRPC_PORT, NATS_PORT, REDIS_PORT, INFLUX_PORT).`,
    );

  const binaries = await ensureStackPackages(log);
  // redis-cli comes with redis-tools, which redis-server depends on.
  await ensureDebianPackages(log, [
    { name: 'redis-tools', present: () => findBinary('redis-cli') !== undefined },
    { name: 'nginx', present: () => findBinary('nginx') !== undefined },
  ]);
  const tools = { 'redis-cli': findBinary('redis-cli')!, nginx: findBinary('nginx')! };

  const supervised = new Map<string, SupervisedServer>();
  const stopAll = async () => {
    // Services and nginx first (they hold store connections), then the stores.
    const order = (label: string) => (/^(nats|redis|influxdb)/.test(label) ? 1 : 0);
    for (const phase of [0, 1]) {
      await Promise.all([...supervised].filter(([label]) => order(label) === phase).map(([, s]) => s.stop()));
    }
    await Promise.all(started.map((child) => child.stop()));
  };
  try {
    const startedAt = Date.now();
    let influxChild: ServerProcess | undefined;
    const [nats, redis, influxUrl] = await Promise.all([
      startNatsCluster({
        binary: binaries.nats!,
        dataDir,
        ports: natsPorts,
        maxFileStoreBytes: settings.natsMaxFileStoreBytes,
        context,
      }),
      startRedisCluster({
        binary: binaries.redis!,
        cliBinary: tools['redis-cli']!,
        dataDir,
        ports: redisPorts,
        appendFsync: settings.redisAppendFsync,
        context,
      }),
      startServer({
        server: 'influxdb',
        binary: binaries.influxdb!,
        dataDir,
        fixedPort: fixed.influx ?? 0,
        settings,
        timeoutMs: context.timeoutMs,
        log,
        onSpawned: (child) => {
          influxChild = child;
          context.onSpawned(child);
        },
      }),
    ]);
    for (const node of [...nats.nodes, ...redis.nodes]) supervised.set(node.label, node.process);
    supervised.set(
      'influxdb',
      new SupervisedServer(
        {
          label: 'influxdb',
          respawn: (onSpawned) =>
            startServer({
              server: 'influxdb',
              binary: binaries.influxdb!,
              dataDir,
              fixedPort: Number(new URL(influxUrl).port),
              settings,
              timeoutMs: context.timeoutMs,
              log,
              onSpawned,
            }),
          restartOnExit: context.restartOnExit,
          log,
          onSpawned: context.onSpawned,
        },
        influxChild!,
      ),
    );
    log(`stores ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

    const counts = { ...DEFAULT_PROCESSES, ...options.processes };
    const serviceUrls: Record<string, string> = {};
    const grpcAddresses: string[] = [];
    const specs: Array<{ label: string; target: ServiceTarget; env: Record<string, string>; url: string }> = [];
    for (const target of ['ingest', 'writer', 'query'] as const) {
      for (let i = 1; i <= counts[target]; i++) {
        const port = await findFreePort();
        const grpc = target === 'ingest' ? await findFreePort() : 0;
        if (target === 'ingest') grpcAddresses.push(`127.0.0.1:${grpc}`);
        const label = `${target}-${i}`;
        const url = `http://127.0.0.1:${port}`;
        serviceUrls[label] = url;
        specs.push({
          label,
          target,
          url,
          env: {
            ...options.serviceEnv,
            API_HOST: '127.0.0.1',
            API_PORT: String(port),
            GRPC_PORT: String(grpc),
            NATS_URL: nats.url,
            NATS_STREAM_REPLICAS: '3',
            REDIS_URL: redis.url,
            REDIS_CLUSTER: 'true',
            INFLUX_URL: influxUrl,
          },
        });
      }
    }
    const startService = async (spec: (typeof specs)[number]) => {
      const dir = join(dataDir, 'services');
      supervised.set(
        spec.label,
        await startSupervised(
          {
            label: spec.label,
            binary: process.execPath,
            args: launcherArgs(spec.target, options.maxHeapMb),
            cwd: repositoryRoot(),
            logFile: join(dir, `${spec.label}.log`),
            env: { ...process.env, ...spec.env },
            url: spec.url,
            probe: answersReady,
          },
          context,
        ),
      );
    };
    // The first ingest creates the JetStream streams (3 replicas); the others find them.
    await startService(specs[0]!);
    await Promise.all(specs.slice(1).map(startService));
    log(`services ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

    supervised.set(
      'nginx',
      await startNginx({
        binary: tools.nginx!,
        dataDir,
        values: {
          listenHost,
          apiPort,
          grpcPort,
          ingestHttp: specs.filter((s) => s.target === 'ingest').map((s) => new URL(s.url).host),
          ingestGrpc: grpcAddresses,
          queryHttp: specs.filter((s) => s.target === 'query').map((s) => new URL(s.url).host),
        },
        context,
      }),
    );
    let stopped: Promise<void> | undefined;
    const supervisedOf = (label: string) => {
      const found = supervised.get(label);
      if (!found) throw new Error(`no process ${label} in the cluster`);
      return found;
    };
    return {
      baseUrl: `http://${listenHost}:${apiPort}`,
      grpcAddress: `${listenHost}:${grpcPort}`,
      natsUrl: nats.url,
      redisUrl: redis.url,
      influxUrl,
      serviceUrls,
      pids,
      labels: () => [...supervised.keys()],
      pidOf: (label) => {
        const found = supervised.get(label);
        return found?.running ? found.pid : undefined;
      },
      redisPortOf: (label) => {
        const node = redis.nodes.find((n) => n.label === label);
        if (!node) throw new Error(`no Redis node ${label}`);
        return node.ports.port;
      },
      stopServer: (label) => supervisedOf(label).stop(),
      async startServer(label) {
        if (stopped) throw new Error('the cluster is stopping');
        await supervisedOf(label).start();
      },
      stop() {
        stopped ??= stopAll();
        return stopped;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
