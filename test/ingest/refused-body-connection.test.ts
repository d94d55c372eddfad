// docs/protocol.md "Body limit": only a body over MAX_BODY_BYTES closes the connection after its 413.
// A 413 for another limit (a line over MAX_LINE_BYTES, too many entities) comes from a body within the
// body limit: the rest of it is read and dropped, so the client reads the envelope rather than a reset
// while it still writes, and the connection serves the next request (the fuzzer found a client that saw
// only EPIPE while the server answered 413 to an over-long line and closed). A client that asked to close
// (`Connection: close`) has its connection closed only once the rest is read: closed earlier, the bytes it
// still sends are answered by a reset, which can discard the answer before the client reads it (the
// fuzzer, seed 532419666: EPIPE 9 ms into an 867 KB body refused with 403 before any of it was read).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

let h: Harness;
let token: string;
const LINE_LIMIT = 1024;

beforeAll(async () => {
  h = await startHarness({ target: 'ingest', env: { MAX_LINE_BYTES: String(LINE_LIMIT) } });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first whole answer (Content-Length) at the start of `received`, and what follows it; undefined until it is whole. */
function takeAnswer(received: Buffer): { answer: RawAnswer; rest: Buffer } | undefined {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const end = headEnd + 4 + Number(headers['content-length']);
  if (received.length < end) return undefined;
  const body = received.subarray(headEnd + 4, end).toString('utf8');
  return { answer: { status: Number(statusLine.split(' ')[1]), headers, body }, rest: received.subarray(end) };
}

/** One kept-alive connection: each `request` writes a whole request and reads one whole answer (Content-Length). */
function connection(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  let buffered: Buffer = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  let closed: Error | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    waiting?.();
  });
  const close = (error: Error) => {
    closed ??= error;
    waiting?.();
  };
  socket.on('end', () => close(new Error('the server closed the connection')));
  socket.on('error', close);
  const answer = (): RawAnswer | undefined => {
    const taken = takeAnswer(buffered);
    if (taken === undefined) return undefined;
    buffered = taken.rest;
    return taken.answer;
  };
  return {
    request(body: string): Promise<RawAnswer> {
      const bytes = Buffer.from(body);
      socket.write(
        `POST /v2.23/events.add_batch HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json-lines\r\nContent-Length: ${bytes.length}\r\n\r\n`,
      );
      socket.write(bytes);
      return new Promise((resolve, reject) => {
        const settle = () => {
          const got = answer();
          if (got !== undefined) resolve(got);
          else if (closed !== undefined) reject(closed);
          else return;
          waiting = undefined;
        };
        waiting = settle;
        settle();
      });
    },
    destroy: () => socket.destroy(),
  };
}

/**
 * A request that asks to close, written in two parts: the head and `first`, then, once the whole answer has
 * arrived, `rest`. Resolves with the answer and how the connection ended after `rest` was written.
 */
function refusedThenRest(
  port: number,
  authorization: string,
  first: Buffer,
  rest: Buffer,
): Promise<{ answer: RawAnswer; ended: string }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  let buffered: Buffer = Buffer.alloc(0);
  let answer: RawAnswer | undefined;
  return new Promise((resolve, reject) => {
    const endedAs = (how: string) => {
      if (answer === undefined) reject(new Error(`no whole answer before the connection ${how}`));
      else resolve({ answer, ended: how });
      socket.destroy();
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (answer !== undefined) return;
      answer = takeAnswer(buffered)?.answer;
      if (answer !== undefined) socket.write(rest);
    });
    socket.on('end', () => endedAs('ended'));
    socket.on('error', (error: NodeJS.ErrnoException) => endedAs(`failed: ${error.code ?? error.message}`));
    socket.write(
      `POST /v2.23/events.add_batch HTTP/1.1\r\nHost: test\r\nConnection: close\r\nAuthorization: ${authorization}\r\n` +
        `Content-Type: application/json-lines\r\nContent-Length: ${first.length + rest.length}\r\n\r\n`,
    );
    socket.write(first);
  });
}

const scalar = (task: string, iter: number) =>
  JSON.stringify({ type: 'training_stats_scalar', task, metric: 'loss', variant: 'v', iter, value: iter });

describe('a streamed body refused before its end, within a declared Content-Length', () => {
  it('a line over MAX_LINE_BYTES: the client reads the envelope and the connection serves the next request', async () => {
    const port = Number(new URL(h.baseUrl).port);
    const conn = connection(port);
    try {
      const task = unique('long-line-');
      // The long line first, then ~1 MB more of the body that the server must read past.
      const lines = [scalar(task, 0).replace('"loss"', `"${'m'.repeat(2 * LINE_LIMIT)}"`)];
      for (let i = 1; i <= 10_000; i++) lines.push(scalar(task, i));
      const refused = await conn.request(lines.join('\n'));
      expect(refused.status).toBe(413);
      expect(refused.headers.connection).not.toBe('close');
      expect(JSON.parse(refused.body).meta).toMatchObject({ result_code: 413, result_subcode: 0 });
      const next = await conn.request([scalar(task, 1), scalar(task, 2)].join('\n'));
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body).data).toEqual({ added: 2, errors: 0, errors_info: {} });
    } finally {
      conn.destroy();
    }
  });

  it('a malformed line (400): the client reads the envelope and the connection serves the next request', async () => {
    const port = Number(new URL(h.baseUrl).port);
    const conn = connection(port);
    try {
      const task = unique('bad-line-');
      const lines = [scalar(task, 0), '{"type": "training_stats_scalar", "task": '];
      for (let i = 1; i <= 10_000; i++) lines.push(scalar(task, i));
      const refused = await conn.request(lines.join('\n'));
      expect(refused.status).toBe(400);
      const next = await conn.request(scalar(task, 1));
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body).data).toEqual({ added: 1, errors: 0, errors_info: {} });
    } finally {
      conn.destroy();
    }
  });
});

describe('a refused body within its declared Content-Length, on a connection the client asked to close', () => {
  const restOf = (task: string) => {
    const lines: string[] = [];
    for (let i = 1; i <= 20_000; i++) lines.push(scalar(task, i));
    return Buffer.from(lines.join('\n'));
  };

  it('refused before any of it is read (401): the rest is read, then the connection ends without a reset', async () => {
    const port = Number(new URL(h.baseUrl).port);
    const task = unique('closing-401-');
    const { answer, ended } = await refusedThenRest(
      port,
      'Bearer not-a-token',
      Buffer.from(`${scalar(task, 0)}\n`),
      restOf(task),
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).meta).toMatchObject({ result_code: 401 });
    expect(ended).toBe('ended');
  });

  it('refused at a malformed line (400): the rest is read, then the connection ends without a reset', async () => {
    const port = Number(new URL(h.baseUrl).port);
    const task = unique('closing-400-');
    const { answer, ended } = await refusedThenRest(
      port,
      `Bearer ${token}`,
      Buffer.from(`${scalar(task, 0)}\n{"type": "training_stats_scalar", "task": \n`),
      restOf(task),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).meta).toMatchObject({ result_code: 400 });
    expect(ended).toBe('ended');
  });
});
