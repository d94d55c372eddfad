/**
 * The HTTP calls to InfluxDB (/ping, /write, /query): undici's `request` on a keep-alive pool of
 * this process. `fetch` (undici too, with WHATWG Request/Response and streams around each call)
 * cost ~500-600 µs of CPU per call against a local server answering 800 bytes, `request` ~130-180
 * (client and server in one process; docs/performance.md, "InfluxDB calls without fetch"): two to
 * three such calls were most of a plot or image read's CPU. (The writer posts its batches with
 * node:http, influx-point-writer.ts.)
 *
 * `influxHttp.request` is the one door: bench:query records the store work of a read there.
 */
import { Agent, request, type Dispatcher } from 'undici';

export interface InfluxHttpCall {
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  readonly signal: AbortSignal;
}

export interface InfluxHttpAnswer {
  readonly statusCode: number;
  /** The answer's bytes as they come; read it whole or let it go (`text`, iteration or `dump`). */
  readonly body: Dispatcher.ResponseData['body'];
}

/**
 * Keep-alive connections to every InfluxDB this process talks to. Timeouts are the callers'
 * (their signal, INFLUX_TIMEOUT_MS): undici's own header and body timeouts (300 s) are off, so
 * a slow answer fails the one way the callers classify.
 */
const pool = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

export const influxHttp = {
  request(url: string, call: InfluxHttpCall): Promise<InfluxHttpAnswer> {
    return request(url, { ...call, dispatcher: pool });
  },
};
