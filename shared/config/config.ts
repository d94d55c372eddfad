/**
 * Service configuration: environment variables (optionally a JSON file named
 * by CONFIG_FILE, whose keys are the same variable names; the environment
 * wins). Parsed once with zod at start-up, frozen, and every problem is
 * reported together, naming the variable and what it expects.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isSecretName } from './config-variables.js';
import { withoutCredentials } from './without-credentials.js';
import { urlList } from './url-list.js';

const MiB = 1024 * 1024;

const port = (what: string) =>
  z.coerce
    .number({ error: `expected a TCP port number (1-65535) for ${what}` })
    .int({ error: `expected a TCP port number (1-65535) for ${what}` })
    .min(0, { error: `expected a TCP port number (1-65535) for ${what}` })
    .max(65535, { error: `expected a TCP port number (1-65535) for ${what}` });

const positiveInt = (what: string) =>
  z.coerce
    .number({ error: `expected a positive integer (${what})` })
    .int({ error: `expected a positive integer (${what})` })
    .positive({
      error: `expected a positive integer (${what})`,
    });

/** Integer from 0 (0 usually meaning none or unlimited). */
const nonNegativeInt = (what?: string) =>
  z.coerce
    .number({ error: what ? `expected a non-negative integer (${what})` : 'expected a non-negative integer' })
    .int()
    .min(0);

const url = (schemes: string[], example: string) =>
  z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: `expected a URL like ${example}` },
  );

/** One URL, or a comma-separated list of them (seed nodes of a cluster). */
const urls = (schemes: string[], example: string) =>
  z.string().refine(
    (value) => {
      const parts = urlList(value);
      return (
        parts.length > 0 &&
        parts.every((part) => {
          try {
            return schemes.includes(new URL(part).protocol);
          } catch {
            return false;
          }
        })
      );
    },
    { error: `expected a URL like ${example}, or a comma-separated list of them` },
  );

const optionalUrl = (schemes: string[], example: string) =>
  z.preprocess((v) => (v === '' ? undefined : v), url(schemes, example).optional());

/** A comma-separated list of exact browser origins (`https://ui.example.com`), or `*` for any. */
const origins = z.string().transform((text, ctx): '*' | string[] => {
  const list = text
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  if (list.length === 1 && list[0] === '*') return '*';
  for (const origin of list) {
    if (!isOrigin(origin)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected * or a comma-separated list of origins like https://ui.example.com (scheme, host and port only)',
      });
      return z.NEVER;
    }
  }
  return list;
});

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text;
  } catch {
    return false;
  }
}

const flag = z
  .preprocess(
    (v) => (typeof v === 'string' ? v.toLowerCase() : v),
    z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'expected true or false' })]),
  )
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

export const configSchema = z
  .object({
    API_HOST: z
      .string()
      .min(1, { error: 'expected a host name or address to listen on' })
      .default('127.0.0.1')
      .meta({ description: 'Listen address of the HTTP API and gRPC' }),
    API_PORT: port('the HTTP API')
      .default(8008)
      .meta({ description: 'HTTP port of the API, /health, /ready, /metrics, /openapi.json (0 picks a free one)' }),
    OPS_PORT: z
      .preprocess((v) => (v === '' ? undefined : v), port('the operations listener').optional())
      .meta({
        description:
          'A listener of its own for /health, /ready and /metrics, apart from the API connections (0 picks a free one); unset: none',
        defaultText: 'none',
      }),
    OPS_HOST: z.string().min(1, { error: 'expected a host name or address to listen on' }).optional().meta({
      description: 'Listen address of the operations listener (OPS_PORT)',
      defaultText: 'API_HOST',
    }),
    OPS_MAX_CONNECTIONS: positiveInt('connections').default(64).meta({
      description:
        'Connections the operations listener (OPS_PORT) holds at once; beyond, new ones are closed as soon as accepted',
    }),
    GRPC_PORT: port('the gRPC ingest API')
      .default(8009)
      .meta({ description: 'gRPC ingest port, targets ingest and all (0 picks a free one)' }),
    API_PATH_PREFIX: z
      .string()
      .regex(/^(\/[^/]+)*$/, { error: 'expected empty or a path prefix like /api' })
      .default('')
      .meta({ description: 'Deployment prefix removed from request paths (e.g. /api)', defaultText: 'none' }),
    DATA_DIR: z
      .string()
      .min(1, { error: 'expected a directory path' })
      .default('var')
      .meta({ description: 'Local stack data, generated secret, default credentials' }),
    CREDENTIALS_FILE: z.string().min(1, { error: 'expected a file path' }).optional().meta({
      description: 'JSON array of {"access_key", "secret_key", "company", "user"} key pairs',
      defaultText: 'DATA_DIR/credentials.json',
    }),
    AUTH_SECRET: z.string().min(32, { error: 'expected at least 32 characters of secret' }).optional().meta({
      description:
        'Secret (at least 32 characters) signing tokens and scroll cursors; every process of a deployment shares it',
      defaultText: 'generated into DATA_DIR/auth-secret',
      secret: true,
    }),
    DEPLOYMENT_ENV: z.string().default('<unknown>').meta({ description: 'The env claim of tokens' }),
    SERVER_BUILD: z.string().default('1').meta({ description: 'The server_build claim of tokens' }),
    NATS_URL: urls(['nats:', 'tls:'], 'nats://127.0.0.1:4222').default('nats://127.0.0.1:14222').meta({
      description:
        'NATS server with JetStream, or comma-separated seed servers of a NATS cluster (the client learns the others from them)',
    }),
    INFLUX_URL: url(['http:', 'https:'], 'http://127.0.0.1:8086')
      .default('http://127.0.0.1:18086')
      .meta({ description: 'InfluxDB v1 HTTP API (1.x, 2.x compatibility, 3.x)' }),
    INFLUX_DB: z
      .string()
      .regex(/^[A-Za-z0-9_]+$/, { error: 'expected a database name of letters, digits and _' })
      .default('clearml')
      .meta({ description: 'InfluxDB database (created when missing)' }),
    INFLUX_USERNAME: z
      .string()
      .optional()
      .meta({ description: 'InfluxDB user name, when it requires credentials', defaultText: 'none' }),
    INFLUX_PASSWORD: z
      .string()
      .optional()
      .meta({ description: 'InfluxDB password', defaultText: 'none', secret: true }),
    REDIS_URL: urls(['redis:', 'rediss:'], 'redis://127.0.0.1:6379')
      .default('redis://127.0.0.1:16379')
      .meta({ description: 'Redis, or comma-separated seed nodes of a Redis Cluster (several imply REDIS_CLUSTER)' }),
    REDIS_CLUSTER: flag
      .default(false)
      .meta({ description: 'Talk to REDIS_URL as a Redis Cluster even when it names one seed node' }),
    NATS_STREAM_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, { error: 'expected letters, digits, _ or -' })
      .default('clearml')
      .meta({
        description:
          'Prefix of the JetStream stream, consumer and subject names (lets deployments share a NATS cluster)',
      }),
    NATS_PARTITIONS: positiveInt('JetStream subject partitions').default(8).meta({
      description:
        'Subject partitions of the events stream; per-task order holds within one. Fixed for the life of a stream',
    }),
    // Not a secret despite its name: it names a key namespace (`secret: false` stops the name rule).
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, { error: 'expected letters, digits, _ or -' })
      .default('clearml')
      .meta({ description: 'Prefix of every Redis key (lets deployments share a Redis)', secret: false }),
    MAX_BODY_BYTES: positiveInt('bytes')
      .default(64 * MiB)
      .meta({ description: 'Request body limit of every operation (413 beyond)' }),
    HTTP_MAX_BUFFERED_BODY_BYTES: positiveInt('bytes')
      .default(512 * MiB)
      .meta({
        description:
          'Bytes of request bodies (HTTP) and messages (gRPC) a process holds at once, a quarter of it per company (429 + Retry-After beyond; streamed add_batch bodies are bounded by INGEST_MAX_MEMORY_BYTES instead)',
      }),
    MAX_LINE_BYTES: positiveInt('bytes')
      .optional()
      .meta({ description: 'Longest NDJSON line (413 beyond)', defaultText: 'MAX_BODY_BYTES' }),
    INGEST_MAX_INFLIGHT_BYTES: positiveInt('bytes')
      .default(512 * MiB)
      .meta({
        description:
          "Bytes of parsed events held per ingest process before 429 + Retry-After, a quarter of it for a company's requests together",
      }),
    INGEST_MAX_WRITER_LAG_MS: nonNegativeInt('milliseconds').default(2_000).meta({
      description:
        "How far behind the writers may be (the smaller of the oldest unstored event's age and the backlog over their recent rate) before ingest refuses the companies sending the most with 429 + Retry-After (not while the writers store nothing at all); 0: never",
    }),
    INGEST_MAX_MEMORY_BYTES: positiveInt('bytes')
      .default(32 * MiB)
      .meta({
        description:
          'Memory the encoded events of all requests of an ingest process may take; beyond it they spill to INGEST_SPILL_DIR until published',
      }),
    INGEST_GC_EXTERNAL_GROWTH_BYTES: nonNegativeInt('bytes')
      .default(20 * MiB)
      .meta({
        description:
          'A full garbage collection when buffer memory outside the V8 heap grew this much while requests are held, and once per idle spell when the heap grew this much past the live heap; 0 leaves it to V8',
      }),
    INGEST_SPILL_DIR: z.string().min(1, { error: 'expected a directory path' }).optional().meta({
      description: 'Directory of the spill files of requests beyond INGEST_MAX_MEMORY_BYTES (on disk, not tmpfs)',
      defaultText: 'the system temporary directory',
    }),
    INGEST_PUBLISH_TIMEOUT_MS: positiveInt('milliseconds')
      .default(10_000)
      .meta({ description: 'Time JetStream has to acknowledge a publish before 503' }),
    REDIS_COMMAND_TIMEOUT_MS: positiveInt('milliseconds')
      .default(5_000)
      .meta({ description: "Longest wait for one Redis command (or MULTI) outside a request's own limits" }),
    REDIS_WAIT_REPLICAS: z
      .union([z.literal('auto'), z.coerce.number().int().min(0)], {
        error: "expected 'auto' or a non-negative integer (replicas)",
      })
      .default('auto')
      .meta({
        description:
          "Replicas a Redis master must have a batch's writes on before the writer acknowledges it (WAIT): auto one when the master has replicas connected, else none; 0 never waits",
      }),
    REDIS_WAIT_TIMEOUT_MS: positiveInt('milliseconds')
      .default(1_000)
      .meta({ description: 'Longest WAIT for the replicas; a shorter answer makes the writer store the batch again' }),
    INFLUX_TIMEOUT_MS: positiveInt('milliseconds')
      .default(30_000)
      .meta({ description: 'Longest wait for one InfluxDB HTTP call (query, ping, database creation), body included' }),
    NATS_REQUEST_TIMEOUT_MS: positiveInt('milliseconds')
      .default(5_000)
      .meta({ description: 'Longest wait for a NATS handshake, flush or JetStream API call' }),
    READY_TIMEOUT_MS: positiveInt('milliseconds')
      .default(2_000)
      .meta({ description: 'Longest wait of each /ready check' }),
    MAX_CONNECTIONS: positiveInt('connections').default(8_192).meta({
      description:
        'Client connections a process holds at once on each listener (HTTP, gRPC), fewer if its open-file limit needs it; beyond, new connections are closed as soon as accepted',
    }),
    GRPC_MAX_OPEN_CALLS: positiveInt('calls').default(20_000).meta({
      description:
        'gRPC calls (streams) a process keeps open at once, a quarter of it per company and a quarter for callers without valid credentials (429 + Retry-After beyond)',
    }),
    READ_MAX_RUNNING_CALLS: positiveInt('calls').default(32).meta({
      description:
        'Read calls (read-only operations) a process runs at once, a quarter of it per company; the calls beyond wait, and a freed slot goes to the companies waiting in turn',
    }),
    READ_MAX_WAITING_CALLS: positiveInt('calls').default(1_024).meta({
      description:
        'Read calls a process keeps waiting for a slot, a quarter of it per company (429 + Retry-After beyond)',
    }),
    DELETE_MAX_RUNNING_CALLS: positiveInt('calls').default(8).meta({
      description:
        'Deletion calls (delete_for_task, delete_for_model, clear_task_log, reports.delete) a process has running in the writers at once, a quarter of it per company; the calls beyond wait, and a freed slot goes to the companies waiting in turn',
    }),
    DELETE_MAX_WAITING_CALLS: positiveInt('calls').default(1_024).meta({
      description:
        'Deletion calls a process keeps waiting for a slot, a quarter of it per company (429 + Retry-After beyond)',
    }),
    GRPC_HEALTH_INTERVAL_MS: positiveInt('milliseconds')
      .default(5_000)
      .meta({ description: "How often the gRPC health service reads the process's readiness" }),
    NATS_STREAM_REPLICAS: positiveInt('replicas')
      .default(1)
      .meta({ description: 'Replicas of the event streams (3 on a NATS cluster of three or more nodes)' }),
    NATS_DUPLICATE_WINDOW_MS: positiveInt('milliseconds').default(600_000).meta({
      description: 'How long JetStream remembers message ids: a request re-sent within it stores nothing twice',
    }),
    NATS_STREAM_MAX_BYTES: nonNegativeInt('bytes').default(0).meta({
      description:
        "Size limit of the events stream (0: none but the server's storage); beyond it ingest answers 503 with Retry-After",
    }),
    NATS_STREAM_MAX_AGE_MS: nonNegativeInt('milliseconds').default(0).meta({
      description: 'Age limit of the events stream (0: none); events the writers have not stored by then are dropped',
    }),
    LOG_RETENTION_MAX_LINES: nonNegativeInt('lines')
      .default(0)
      .meta({ description: 'Log lines a task keeps (0: all); the writer drops the oldest beyond it as lines arrive' }),
    LOG_RETENTION_MAX_AGE_MS: nonNegativeInt('milliseconds').default(0).meta({
      description:
        'Age of the log lines a task keeps, by their timestamp (0: all); applied when the task receives lines',
    }),
    INGEST_MAX_ENTITIES_PER_REQUEST: positiveInt('entities per request')
      .default(10_000)
      .meta({ description: 'Distinct task/model ids one add/add_batch request (or gRPC chunk) may name before 413' }),
    WRITER_BATCH_EVENTS: positiveInt('events per store write')
      .default(10_000)
      .meta({ description: 'Events per store write' }),
    WRITER_FLUSH_MS: positiveInt('milliseconds')
      .default(50)
      .meta({ description: 'Longest wait before a partial batch is written' }),
    /** Lifetime of a writer's partition lease (docs/scaling.md): a stopped or cut-off writer's partitions move after at most this long. */
    WRITER_LEASE_TTL_MS: z.coerce
      .number({ error: 'expected an integer of milliseconds, at least 1000' })
      .int()
      .min(1_000, { error: 'expected an integer of milliseconds, at least 1000' })
      .default(10_000)
      .meta({
        description:
          "Lifetime of a writer's partition lease; a stopped or cut-off writer's partitions move to the others within it",
      }),
    WRITER_THREAD: flag.default(true).meta({
      description:
        'The all target runs its writer on a thread of its own (a second core); false keeps it on the main event loop',
    }),
    HEAP_GROWING_PERCENT: nonNegativeInt('percent')
      .max(1000, { error: 'expected an integer percentage, at most 1000' })
      .default(300)
      .meta({
        description:
          "How far a process's heap may grow past what was live before V8 starts its next full collection, in percent (300: to 4x); 0 leaves V8's own adaptive factor",
      }),
    PLOT_VALIDATION: flag.default(false).meta({ description: 'Store valid_plot (events.md §1.7)' }),
    PLOT_COMPRESSION_THRESHOLD: nonNegativeInt()
      .default(100_000)
      .meta({ description: 'plot_str length from which plots are stored compressed (0: never)' }),
    LISTING_CACHE_BYTES: nonNegativeInt('bytes')
      .default(16 * 1024 * 1024)
      .meta({
        description:
          'Metric listings a query process keeps between reads, in bytes (0: none); one is reused while its version in Redis stays the same',
      }),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'expected one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info')
      .meta({ description: 'pino level: fatal, error, warn, info, debug, trace, silent' }),
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty'], { error: 'expected auto, json or pretty' }).default('auto').meta({
      description:
        'Log lines as JSON (json), human-readable (pretty), or pretty when standard output is a terminal and JSON otherwise (auto)',
    }),
    SHUTDOWN_PHASE_TIMEOUT_MS: positiveInt('milliseconds')
      .default(10_000)
      .meta({ description: 'Time allowed to each shutdown phase (stop accepting, drain, close clients)' }),
    CORS_ALLOWED_ORIGINS: origins.default([]).meta({
      description:
        'Browser origins whose pages may call the API with the login cookie and read the answers (comma-separated, or * for any)',
      defaultText: 'none',
    }),
    CLEARML_SERVER_URL: optionalUrl(['http:', 'https:'], 'http://clearml-apiserver:8008').meta({
      description: 'ClearML API server this service runs beside (companion mode); unset: standalone',
      defaultText: 'none',
    }),
    CLEARML_TOKEN_SECRET: z.string().min(1, { error: 'expected the ClearML server token secret' }).optional().meta({
      description: "ClearML's secure.auth.token_secret: tokens the ClearML server issued are accepted with it",
      defaultText: 'none',
      secret: true,
    }),
    CLEARML_TIMEOUT_MS: positiveInt('milliseconds')
      .default(5_000)
      .meta({ description: 'Longest wait for one call to the ClearML server (then 503)' }),
    CLEARML_FACTS_TTL_MS: positiveInt('milliseconds').default(5_000).meta({
      description:
        'How long facts about a task or model (existence, name, project, status) taken from the ClearML server are reused',
    }),
    CLEARML_FACTS_CACHE_SIZE: positiveInt('entries')
      .default(50_000)
      .meta({ description: 'Most task/model facts kept per process' }),
    HTTP_HEADERS_TIMEOUT_MS: positiveInt('milliseconds').default(20_000).meta({
      description:
        "Time a client has to send a request's headers (at most HTTP_REQUEST_TIMEOUT_MS); over gRPC, a message without valid credentials",
    }),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt('milliseconds').default(300_000).meta({
      description:
        'Time a client has to send a whole request, body included (a stalled upload ends with 408); over gRPC, a message',
    }),
    HTTP_IDLE_TIMEOUT_MS: positiveInt('milliseconds').default(120_000).meta({
      description:
        'A connection with no bytes in either direction for this long is closed (stalled bodies, clients that stop reading)',
    }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt('milliseconds').default(72_000).meta({
      description: 'How long an idle keep-alive connection is kept open between requests; over gRPC, one without calls',
    }),
  })
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    error: 'expected at most HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)',
  })
  .refine((c) => c.OPS_PORT === undefined || c.OPS_PORT === 0 || ![c.API_PORT, c.GRPC_PORT].includes(c.OPS_PORT), {
    path: ['OPS_PORT'],
    error: 'expected a port other than API_PORT and GRPC_PORT (the operations listener is a listener of its own)',
  });

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends Omit<RawConfig, 'CREDENTIALS_FILE' | 'MAX_LINE_BYTES'> {
  readonly CREDENTIALS_FILE: string;
  readonly MAX_LINE_BYTES: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`CONFIG_FILE: cannot read ${file} (${(error as Error).message})`]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault, which may be a secret.
    throw new ConfigError([
      `CONFIG_FILE: ${file} must hold a JSON object of variable names to values (it is not valid JSON)`,
    ]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError([
      `CONFIG_FILE: ${file} must hold a JSON object of variable names to values (not a JSON object)`,
    ]);
  }
  return parsed as Record<string, unknown>;
}

const MAX_SHOWN_CHARS = 200;

/**
 * How a configuration error shows the value it refused: secrets (the schema
 * says so, or the name does: SECRET, PASSWORD, TOKEN, KEY) by length only,
 * anything else without the user-info part of a URL (`user:pass@`) or its
 * query, cut to a readable length.
 */
export function describeGivenValue(name: string, value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const field = (configSchema.shape as Record<string, z.ZodType>)[name];
  if (isSecretName(name, field?.meta())) return `a value of ${text.length} characters (not shown: secret)`;
  const shown = withoutCredentials(text);
  return JSON.stringify(shown.length > MAX_SHOWN_CHARS ? `${shown.slice(0, MAX_SHOWN_CHARS)}...` : shown);
}

/** Parses configuration from an environment (process.env at the composition root, a literal in tests). */
export function loadConfig(env: Record<string, string | undefined>): Readonly<Config> {
  const fromFile = env.CONFIG_FILE ? readConfigFile(env.CONFIG_FILE) : {};
  const input: Record<string, unknown> = { ...fromFile };
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = configSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? '?');
        const given = input[key];
        return `${key}: ${issue.message}${given === undefined ? '' : `, got ${describeGivenValue(key, given)}`}`;
      }),
    );
  }
  const raw = result.data;
  return Object.freeze({
    ...raw,
    DATA_DIR: path.resolve(raw.DATA_DIR),
    CREDENTIALS_FILE: path.resolve(raw.CREDENTIALS_FILE ?? path.join(raw.DATA_DIR, 'credentials.json')),
    MAX_LINE_BYTES: raw.MAX_LINE_BYTES ?? raw.MAX_BODY_BYTES,
  });
}
