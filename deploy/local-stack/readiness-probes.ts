/**
 * "Does this server answer?" checks that speak just enough of each protocol,
 * so the launcher needs no client libraries and works before npm packages
 * are in place. They accept the URL forms users put in NATS_URL, INFLUX_URL
 * and REDIS_URL.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
}

export interface NatsInfo {
  jetstream?: boolean;
  max_payload?: number;
  version?: string;
  [key: string]: unknown;
}

/** First server of a NATS URL list ("nats://a:4222,nats://b:4222" or "host:port"). */
export function natsEndpoint(url: string): Endpoint {
  const first = url.split(',')[0]!.trim();
  // NATS sends INFO in clear text before any TLS upgrade, so tls:// needs no TLS here.
  return endpointOf(first.includes('://') ? first : `nats://${first}`, 4222, false);
}

/** First node of a Redis URL list ("redis://a:7000,redis://b:7001": cluster seeds). */
export function redisEndpoint(url: string): Endpoint {
  const first = url.split(',')[0]!.trim();
  return endpointOf(first, 6379, new URL(first).protocol === 'rediss:');
}

/** Connects and returns the INFO the server greets every client with. */
export async function natsInfo(url: string, timeoutMs: number): Promise<NatsInfo> {
  const reply = await tcpExchange(natsEndpoint(url), '', (text) => text.includes('\r\n'), timeoutMs);
  const match = /^INFO\s+(\{.*\})\s*\r\n/.exec(reply);
  if (!match) throw new Error(`unexpected NATS greeting: ${reply.slice(0, 80)}`);
  return JSON.parse(match[1]!) as NatsInfo;
}

export async function influxPing(url: string, timeoutMs: number): Promise<void> {
  const status = await httpStatus(`${baseUrl(url)}/ping`, timeoutMs);
  if (status !== 204) throw new Error(`InfluxDB /ping answered ${status}, expected 204`);
}

/**
 * NOAUTH counts as answering (the server is up, the app authenticates);
 * LOADING does not: Redis answers it while it replays its append-only file.
 */
export async function redisPing(url: string, timeoutMs: number): Promise<void> {
  const reply = await tcpExchange(redisEndpoint(url), 'PING\r\n', (t) => t.includes('\r\n'), timeoutMs);
  if (!reply.startsWith('+PONG') && !reply.startsWith('-NOAUTH')) {
    throw new Error(`Redis answered ${reply.trim()}`);
  }
}

/**
 * Writes `payload`, then collects the reply until `isComplete` says it has it
 * all. Also serves tests that need one raw command.
 */
export function tcpExchange(
  endpoint: Endpoint,
  payload: string,
  isComplete: (text: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket: Socket = endpoint.tls
      ? tlsConnect({ host: endpoint.host, port: endpoint.port, servername: endpoint.host })
      : netConnect({ host: endpoint.host, port: endpoint.port });
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(text);
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete answer from ${endpoint.host}:${endpoint.port} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.setEncoding('utf8');
    socket.once(endpoint.tls ? 'secureConnect' : 'connect', () => {
      if (payload) socket.write(payload);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (isComplete(text)) finish();
    });
    socket.once('error', (error) => finish(error));
    socket.once('close', () => finish(new Error(`connection to ${endpoint.host}:${endpoint.port} closed early`)));
  });
}

/** GET without keep-alive, so no pooled socket outlives the check. */
export function httpStatus(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end();
  });
}

/** Base URL without credentials or trailing slash; a path prefix (reverse proxy) is kept. */
export function baseUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString().replace(/\/+$/, '');
}

function endpointOf(url: string, defaultPort: number, tls: boolean): Endpoint {
  const parsed = new URL(url);
  return {
    // URL keeps IPv6 literals in brackets; sockets want them bare.
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : defaultPort,
    tls,
  };
}
