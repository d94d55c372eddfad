/**
 * HTTP/1.1 over a plain socket, one request per connection. Node's HTTP
 * client refuses what a hostile client sends (NUL or non-Latin-1 bytes in
 * headers, duplicated headers in odd orders), so requests are written as
 * bytes and the answer is parsed here. Every request has a deadline: no
 * complete answer within it is a hang.
 */
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** Path and query, written as given (already percent-encoded where wanted). */
  target: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer; ms: number }
  | { kind: 'hang'; ms: number; received: number }
  | { kind: 'dropped'; error: string; ms: number; received: number };

export function encodeRequest(request: RawRequest, host: string): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, `host: ${host}`, 'connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (
    !request.headers.some(
      ([name]) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding',
    )
  ) {
    lines.push(`content-length: ${request.body.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), request.body]);
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  complete: boolean;
}

function dechunk(data: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: false };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (eol + 2 + size > data.length) return { body: Buffer.concat(parts), complete: false };
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

export function parseResponse(data: Buffer, ended: boolean, headOnly = false): Parsed | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...headerLines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(headEnd + 4);
  // The answer to HEAD has no body, whatever content-length says.
  if (headOnly) return { status, headers, body: Buffer.alloc(0), complete: true };
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const { body, complete } = dechunk(rest);
    return { status, headers, body, complete };
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return { status, headers, body: rest.subarray(0, length), complete: rest.length >= length };
  }
  return { status, headers, body: rest, complete: ended };
}

export function sendRaw(port: number, bytes: Buffer, deadlineMs: number): Promise<RawOutcome> {
  const headOnly = bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const socket = net.connect({ host: '127.0.0.1', port });
    const finish = (outcome: RawOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const ms = () => Math.round(performance.now() - started);
    const tryAnswer = (ended: boolean): boolean => {
      const parsed = parseResponse(Buffer.concat(chunks), ended, headOnly);
      if (parsed === undefined || !parsed.complete) return false;
      finish({ kind: 'answer', status: parsed.status, headers: parsed.headers, body: parsed.body, ms: ms() });
      return true;
    };
    const timer = setTimeout(() => finish({ kind: 'hang', ms: ms(), received }), deadlineMs);
    socket.on('connect', () => {
      // A server may answer (413) and close before the whole body is written: that answer counts.
      socket.write(bytes, () => undefined);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      tryAnswer(false);
    });
    socket.on('end', () => {
      if (!tryAnswer(true)) finish({ kind: 'dropped', error: 'closed without a complete answer', ms: ms(), received });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // EPIPE/ECONNRESET after an answer arrived: the answer stands.
      if (tryAnswer(true)) return;
      finish({ kind: 'dropped', error: error.code ?? error.message, ms: ms(), received });
    });
  });
}
