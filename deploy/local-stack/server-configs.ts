/**
 * Config file texts for the servers the launcher starts. Every listener is
 * bound to 127.0.0.1 on a port we chose, so that several stacks (npm start
 * next to a test run, or two test stacks) never clash.
 */

// JSON string escapes are valid in TOML, NATS conf and redis.conf strings,
// and paths may contain spaces.
const quote = (value: string): string => JSON.stringify(value);

/** Durability and capacity settings of the stack's servers (docs/operations.md says what each promises). */
export interface ServerOptions {
  /** Redis `appendfsync`: `always` (fsync before each write is answered), `everysec` (default) or `no`. */
  redisAppendFsync: 'always' | 'everysec' | 'no';
  /** JetStream file storage cap of nats-server (`max_file_store`), bytes. */
  natsMaxFileStoreBytes: number;
  /**
   * InfluxDB `compact-full-write-cold-duration`: how long a shard takes no writes before its files
   * are fully compacted. InfluxDB's default; bench:storage shortens it to measure the compacted size.
   */
  influxFullCompactionColdDuration: string;
  /**
   * InfluxDB `query-timeout`: a query running longer is cut. `0s` (InfluxDB's default, kept by the
   * stack): none, the service bounds its own queries (INFLUX_TIMEOUT_MS). Tests set it to see a
   * query cut in the middle of its answer.
   */
  influxQueryTimeout: string;
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  redisAppendFsync: 'everysec',
  natsMaxFileStoreBytes: 10 * 1024 ** 3,
  influxFullCompactionColdDuration: '4h',
  influxQueryTimeout: '0s',
};

/** A node of a NATS cluster (deploy/cluster-stack): its name, route port, the other nodes' route ports, and a monitoring port. */
export interface NatsClusterNode {
  serverName: string;
  clusterName: string;
  routePort: number;
  routes: number[];
  monitorPort: number;
}

export function natsConfigText(options: {
  port: number;
  storeDir: string;
  maxFileStoreBytes: number;
  cluster?: NatsClusterNode;
}): string {
  const { cluster } = options;
  // nats-server appends "jetstream" to store_dir itself.
  return [
    `listen: "127.0.0.1:${options.port}"`,
    // Many events per message, and plots of several MiB.
    'max_payload: 8MB',
    'jetstream {',
    `  store_dir: ${quote(options.storeDir)}`,
    // A full disk stops every store on the machine; a full JetStream only refuses publishes (ingest answers 503).
    `  max_file_store: ${options.maxFileStoreBytes}`,
    '}',
    ...(cluster
      ? [
          // JetStream clustering needs a stable server name per node.
          `server_name: ${quote(cluster.serverName)}`,
          `http: "127.0.0.1:${cluster.monitorPort}"`,
          'cluster {',
          `  name: ${quote(cluster.clusterName)}`,
          `  listen: "127.0.0.1:${cluster.routePort}"`,
          `  routes: [${cluster.routes.map((port) => quote(`nats-route://127.0.0.1:${port}`)).join(', ')}]`,
          '}',
        ]
      : []),
    '',
  ].join('\n');
}

export function influxConfigText(options: {
  dir: string;
  httpPort: number;
  rpcPort: number;
  fullCompactionColdDuration: string;
  queryTimeout: string;
}): string {
  const { dir, httpPort, rpcPort } = options;
  return [
    // Debian renamed upstream's reporting-disabled; influxd ignores the key it
    // does not know, so both spellings keep usage reports off everywhere.
    'reporting-enabled = false',
    'reporting-disabled = true',
    // Backup/restore RPC: the default 127.0.0.1:8088 would clash between stacks.
    `bind-address = "127.0.0.1:${rpcPort}"`,
    '',
    '[meta]',
    `  dir = ${quote(`${dir}/meta`)}`,
    '',
    '[data]',
    `  dir = ${quote(`${dir}/data`)}`,
    `  wal-dir = ${quote(`${dir}/wal`)}`,
    // Series live on disk: one task can have many metric/variant series.
    '  index-version = "tsi1"',
    '  max-series-per-database = 0',
    '  max-values-per-tag = 0',
    '  cache-max-memory-size = "1g"',
    // A query copies every point its series hold in the write cache, per field, however narrow its
    // time range (measured: 0.5 ms per series field for 50k cached points), so reads cost what
    // the cache holds rather than what they return. An idle shard's cache goes to TSM after 10 s
    // instead of the default 10 min; a busy one still snapshots at cache-snapshot-memory-size.
    '  cache-snapshot-write-cold-duration = "10s"',
    `  compact-full-write-cold-duration = ${quote(options.fullCompactionColdDuration)}`,
    '  query-log-enabled = false',
    '',
    '[coordinator]',
    `  query-timeout = ${quote(options.queryTimeout)}`,
    '',
    '[monitor]',
    '  store-enabled = false',
    '',
    '[continuous_queries]',
    '  enabled = false',
    '',
    '[subscriber]',
    '  enabled = false',
    '',
    '[http]',
    `  bind-address = "127.0.0.1:${httpPort}"`,
    '  log-enabled = false',
    // Unlimited: plots written as string fields can exceed the 25 MB default.
    '  max-body-size = 0',
    '',
    '[logging]',
    '  level = "warn"',
    '  suppress-logo = true',
    '',
  ].join('\n');
}

/** Cluster mode of a Redis node (deploy/cluster-stack): its bus port, and how long a silent master has before its replica takes over. */
export interface RedisClusterNode {
  busPort: number;
  nodeTimeoutMs: number;
}

export function redisConfigText(options: {
  port: number;
  dir: string;
  logFile: string;
  appendFsync: ServerOptions['redisAppendFsync'];
  cluster?: RedisClusterNode;
}): string {
  const { cluster } = options;
  return [
    `port ${options.port}`,
    'bind 127.0.0.1',
    'protected-mode no',
    'daemonize no',
    `dir ${quote(options.dir)}`,
    `logfile ${quote(options.logFile)}`,
    // Durability comes from the append-only file; RDB snapshots would only
    // add fork pauses.
    'appendonly yes',
    `appendfsync ${options.appendFsync}`,
    'save ""',
    ...(cluster
      ? [
          'cluster-enabled yes',
          // Relative to dir: the node's identity and view of the cluster, kept across restarts.
          'cluster-config-file nodes.conf',
          `cluster-port ${cluster.busPort}`,
          `cluster-node-timeout ${cluster.nodeTimeoutMs}`,
          // A slot range without its master refuses commands (CLUSTERDOWN) rather than some keys answering and others not.
          'cluster-require-full-coverage yes',
          // A replica syncs without an RDB file on disk (save is off).
          'repl-diskless-sync yes',
          'maxmemory-policy noeviction',
        ]
      : []),
    '',
  ].join('\n');
}
