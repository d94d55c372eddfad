/**
 * InfluxDB /write for the writer's batches, at most `concurrency` in flight
 * per process: influxd's CPU is the pipeline's bottleneck, so more
 * concurrent writes only queue inside it and stretch every batch's latency.
 *
 * Plain node:http rather than InfluxStore.write (fetch): undici copies a
 * Buffer body before sending it, a megabyte of garbage per batch, and the
 * writer's CPU goes mostly to garbage collection.
 */
import http from 'node:http';
import https from 'node:https';
import { InfluxError } from '../../shared/stores/influx-store.js';
import { describeError } from './store-errors.js';
import { trimEndChar } from '../../shared/text/trim-char.js';

const WRITE_TIMEOUT_MS = 60_000;

export interface InfluxWriteTarget {
  url: string;
  database: string;
  username?: string;
  password?: string;
}

export class InfluxPointWriter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly options: http.RequestOptions;

  constructor(
    target: InfluxWriteTarget,
    private readonly concurrency: number,
  ) {
    const url = new URL(target.url);
    this.transport = url.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: concurrency });
    const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
    if (target.username)
      headers.authorization = `Basic ${Buffer.from(`${target.username}:${target.password ?? ''}`).toString('base64')}`;
    this.options = {
      method: 'POST',
      hostname: url.hostname,
      port: url.port,
      path: `${trimEndChar(url.pathname, '/')}/write?db=${encodeURIComponent(target.database)}&precision=ns`,
      headers,
      agent: this.agent,
      timeout: WRITE_TIMEOUT_MS,
    };
  }

  /** `beforeSend` runs once the slot is taken, right before the POST; it may throw to cancel the write. */
  async write(body: Buffer, beforeSend?: () => void): Promise<void> {
    if (body.length === 0) return;
    await this.takeSlot();
    try {
      beforeSend?.();
      await this.post(body);
    } finally {
      this.passSlot();
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const request = this.transport.request(
        { ...this.options, headers: { ...this.options.headers, 'content-length': String(body.length) } },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status === 204) {
            response.resume();
            response.on('end', resolve);
            response.on('error', reject);
            return;
          }
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          // The cause comes last ("unable to parse '<the whole line>': max key length exceeded"): keep both ends.
          response.on('end', () =>
            reject(
              new InfluxError(
                `InfluxDB write failed (${status}): ${describeError(Buffer.concat(chunks).toString('utf8'), 1000)}`,
                status,
              ),
            ),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`InfluxDB write took more than ${WRITE_TIMEOUT_MS} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  private takeSlot(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  // The slot goes straight to the next waiter, so a newcomer cannot slip in between.
  private passSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/** A rejection that no retry can fix: the body (some point of it) is malformed or conflicts with stored types. */
export function isRejection(error: unknown): error is InfluxError {
  return error instanceof InfluxError && error.permanent;
}
