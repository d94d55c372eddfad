/**
 * The query benchmark's HTTP client, on a worker thread: receiving answers
 * of megabytes is the client's work, which in production runs on another
 * machine, so it must not take the event loop the service runs on. Each
 * call is timed here, from sending the request to the answer's last byte;
 * the body is joined and decoded only when asked (`keepBody`), after timing.
 */
import http from 'node:http';
import { parentPort } from 'node:worker_threads';

export interface ClientRequest {
  id: number;
  url: string;
  headers: Record<string, string | number>;
  body: string;
  keepBody: boolean;
}

export type ClientAnswer =
  { id: number; status: number; ms: number; text?: string; retryAfter?: string } | { id: number; error: string };

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const port = parentPort!;

port.on('message', ({ id, url, headers, body, keepBody }: ClientRequest) => {
  const fail = (error: Error) => port.postMessage({ id, error: error.message } satisfies ClientAnswer);
  const started = performance.now();
  const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', fail);
    res.on('end', () => {
      const ms = performance.now() - started;
      port.postMessage({
        id,
        status: res.statusCode ?? 0,
        ms,
        text: keepBody ? Buffer.concat(chunks).toString('utf8') : undefined,
        retryAfter: res.headers['retry-after'],
      } satisfies ClientAnswer);
    });
  });
  req.on('error', fail);
  req.end(body);
});
