/**
 * The HTTP calls to InfluxDB (/ping, /write, /query) on keep-alive connections, with node:http.
 * `fetch` (undici under WHATWG Request, Response and streams for every call) cost ~500-600 µs of
 * CPU per call against a local server answering 800 bytes, `http.request` with a keep-alive agent
 * ~180-360, undici's own `request` ~130-290 (client and server in one process; docs/performance.md,
 * "InfluxDB calls without fetch"): two to three such calls were most of a plot or image read's CPU.
 * Not undici's `request`: importing the undici package makes its Agent the process's global
 * dispatcher, under Node's own fetch too (the companion's ClearML client, tests), a version that
 * refuses what Node's bundled one accepts (measured: a pass-through forwarding a request's
 * content-length failed with UND_ERR_INVALID_ARG). The writer posts its batches with node:http too
 * (influx-point-writer.ts).
 *
 * `influxHttp.request` is the one door: bench:query records the store work of a read there.
 */
import http from 'node:http';
import https from 'node:https';
import type { InfluxCallLimit } from './influx-call-limit.js';

export interface InfluxHttpCall {
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  /** The call's deadline and its caller's abort (influx-call-limit.ts): the one timeout (INFLUX_TIMEOUT_MS). */
  readonly limit: InfluxCallLimit;
}

/** An answer's bytes as they come: read it whole (`text`), piece by piece (iteration), or let it go (`dump`). */
export interface InfluxHttpBody extends AsyncIterable<Buffer> {
  text(): Promise<string>;
  dump(): Promise<void>;
}

export interface InfluxHttpAnswer {
  readonly statusCode: number;
  readonly body: InfluxHttpBody;
}

/** A keep-alive pool of connections to every InfluxDB the process talks to. */
export class InfluxHttp {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  request(url: string, call: InfluxHttpCall): Promise<InfluxHttpAnswer> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const headers = { ...call.headers };
    if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
    return new Promise<InfluxHttpAnswer>((resolve, reject) => {
      const request = (secure ? https : http).request(
        target,
        { method: call.method, headers, agent: this.agents[secure ? 'https:' : 'http:'] },
        (response) => resolve({ statusCode: response.statusCode ?? 0, body: bodyOf(response) }),
      );
      request.on('error', reject);
      call.limit.attach(request);
      request.end(call.body);
    });
  }
}

function bodyOf(response: http.IncomingMessage): InfluxHttpBody {
  return {
    [Symbol.asyncIterator]: () => response[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async dump() {
      for await (const _ of response);
    },
  };
}

/** The service's InfluxDB calls. */
export const influxHttp = new InfluxHttp();
