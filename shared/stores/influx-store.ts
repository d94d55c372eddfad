/**
 * InfluxDB through its v1 HTTP API (line-protocol /write, InfluxQL /query):
 * served by InfluxDB 1.x, by 2.x compatibility endpoints and by 3.x. Plain
 * HTTP calls (influx-http.ts) rather than the client library's transport or
 * its v2 Write/Query APIs: docs/storage.md, "The InfluxDB client library",
 * says why (and what of the library the service does use: its line-protocol
 * escaping).
 */
import type { Config } from '../config/config.js';
import { UNTIMED, type StoreCalls } from './store-calls.js';
import { statementErrorStatus } from './influx-statement-errors.js';
import { influxHttp } from './influx-http.js';
import { withInfluxLimit } from './influx-call-limit.js';
import { trimEndChar } from '../text/trim-char.js';

export interface InfluxSeries {
  name: string;
  tags?: Record<string, string>;
  columns: string[];
  values: unknown[][];
}

export interface InfluxResult {
  statement_id: number;
  series?: InfluxSeries[];
  error?: string;
}

export class InfluxError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'InfluxError';
  }
  /** Failures that a retry cannot fix (bad line protocol, type conflicts). */
  get permanent(): boolean {
    return this.status === 400 || this.status === 413;
  }
}

/**
 * InfluxDB could not write its JSON answer because a result holds a number JSON cannot hold: an
 * aggregate (MEAN) whose values add up beyond the largest double gives ±Inf. InfluxDB then answers
 * 200 with Go's marshalling error as the body (`json: unsupported value: +Inf`). Not transient: the
 * same statement fails the same way.
 */
export class InfluxUnencodableAnswer extends InfluxError {
  constructor(detail: string) {
    // Keeps InfluxError's name: store-errors.ts classifies by it (422: not transient).
    super(`InfluxDB could not encode its answer: ${detail}`, 422);
  }
}

export interface InfluxStoreOptions {
  url: string;
  database: string;
  username?: string;
  password?: string;
  /** Longest wait for one call, answer body included (default 30 s). */
  timeoutMs?: number;
  /** Where the calls' durations and errors are recorded (the process's metrics). */
  calls?: StoreCalls;
}

export const INFLUX_DEFAULT_TIMEOUT_MS = 30_000;

/** The configuration an InfluxDB client of the service is made from. */
export type InfluxConfig = Readonly<
  Pick<Config, 'INFLUX_URL' | 'INFLUX_DB' | 'INFLUX_USERNAME' | 'INFLUX_PASSWORD' | 'INFLUX_TIMEOUT_MS'>
>;

/** The service's InfluxDB client, as configured. */
export function influxStoreFor(config: InfluxConfig, calls: StoreCalls = UNTIMED): InfluxStore {
  return new InfluxStore({
    url: config.INFLUX_URL,
    database: config.INFLUX_DB,
    username: config.INFLUX_USERNAME,
    password: config.INFLUX_PASSWORD,
    timeoutMs: config.INFLUX_TIMEOUT_MS,
    calls,
  });
}

/** The Authorization header value for InfluxDB credentials, if any. */
export function influxAuthorization(username: string | undefined, password: string | undefined): string | undefined {
  return username ? `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}` : undefined;
}

/**
 * Query answers uncompressed: InfluxDB compresses an answer when asked, and
 * compressing answers of megabytes that Node decompresses again is CPU on
 * both sides to save bandwidth on what is a local or in-cluster link (fetch
 * asked for gzip by default; the header stays, saying what is wanted).
 */
export const QUERY_HEADERS = { 'accept-encoding': 'identity' } as const;

export class InfluxStore {
  private readonly base: string;
  private readonly auth: string | undefined;
  private readonly timeoutMs: number;
  private readonly calls: StoreCalls;

  constructor(private readonly options: InfluxStoreOptions) {
    this.timeoutMs = options.timeoutMs ?? INFLUX_DEFAULT_TIMEOUT_MS;
    this.calls = options.calls ?? UNTIMED;
    this.base = trimEndChar(options.url, '/');
    this.auth = influxAuthorization(options.username, options.password);
  }

  get database(): string {
    return this.options.database;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.auth ? { ...extra, authorization: this.auth } : extra;
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.calls.time('influx', 'ping', () => this.pingOnce(signal));
  }

  private async pingOnce(signal?: AbortSignal): Promise<void> {
    await withInfluxLimit(this.timeoutMs, signal, async (limit) => {
      const response = await influxHttp.request(`${this.base}/ping`, {
        method: 'GET',
        headers: this.headers(),
        limit,
      });
      await response.body.dump();
      if (response.statusCode !== 204)
        throw new InfluxError(`InfluxDB /ping answered ${response.statusCode}`, response.statusCode);
    });
  }

  /** Writes line protocol (nanosecond precision). Resolves once InfluxDB accepted the whole body. */
  async write(lines: string | Buffer, signal?: AbortSignal): Promise<void> {
    await this.calls.time('influx', 'write', () => this.writeOnce(lines, signal));
  }

  private async writeOnce(lines: string | Buffer, signal?: AbortSignal): Promise<void> {
    await withInfluxLimit(this.timeoutMs, signal, async (limit) => {
      const response = await influxHttp.request(
        `${this.base}/write?db=${encodeURIComponent(this.database)}&precision=ns`,
        {
          method: 'POST',
          headers: this.headers({ 'content-type': 'text/plain; charset=utf-8' }),
          body: lines,
          limit,
        },
      );
      if (response.statusCode !== 204) {
        throw new InfluxError(
          `InfluxDB write failed (${response.statusCode}): ${(await response.body.text()).slice(0, 500)}`,
          response.statusCode,
        );
      }
      await response.body.dump();
    });
  }

  /** Runs InfluxQL statements (separated by `;`) against the database; epoch ns timestamps. */
  async query(
    statements: string,
    options: { method?: 'GET' | 'POST'; signal?: AbortSignal } = {},
  ): Promise<InfluxResult[]> {
    return this.calls.time('influx', 'query', () => this.queryOnce(statements, options));
  }

  private async queryOnce(
    statements: string,
    options: { method?: 'GET' | 'POST'; signal?: AbortSignal },
  ): Promise<InfluxResult[]> {
    const params = new URLSearchParams({ db: this.database, q: statements, epoch: 'ns' });
    const method = options.method ?? 'GET';
    const [status, text] = await withInfluxLimit(this.timeoutMs, options.signal, async (limit) => {
      const form = params.toString();
      const response = await influxHttp.request(
        method === 'GET' ? `${this.base}/query?${form}` : `${this.base}/query`,
        {
          method,
          headers: this.headers({
            ...QUERY_HEADERS,
            ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          }),
          ...(method === 'POST' ? { body: form } : {}),
          limit,
        },
      );
      return [response.statusCode, await response.body.text()] as const;
    });
    if (status !== 200) throw new InfluxError(`InfluxDB query failed (${status}): ${text.slice(0, 500)}`, status);
    let parsed: { results?: InfluxResult[]; error?: string };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      if (text.startsWith('json: ')) throw new InfluxUnencodableAnswer(text.trim().slice(0, 200));
      throw new InfluxError(`InfluxDB answered something that is not JSON: ${text.slice(0, 200)}`, 502);
    }
    if (parsed.error)
      throw new InfluxError(`InfluxDB query failed: ${parsed.error}`, statementErrorStatus(parsed.error));
    const results = parsed.results ?? [];
    const error = results.find((r) => r.error)?.error;
    if (error) throw new InfluxError(`InfluxDB query failed: ${error}`, statementErrorStatus(error));
    return results;
  }

  /** Creates the database (idempotent) with an infinite retention policy: time carries the iteration. */
  async ensureDatabase(): Promise<void> {
    await this.query(`CREATE DATABASE "${this.database}"`, { method: 'POST' });
  }
}
