/**
 * bench:query's HTTP client: its calls run on a worker thread (http-client-worker.ts), as a client on
 * another machine would not share the service's event loop.
 */
import { Worker } from 'node:worker_threads';
import type { ClientAnswer, ClientRequest } from './http-client-worker.js';

/** API calls through the client worker (http-client-worker.ts). */
export class WorkerClient {
  private readonly worker = new Worker(new URL('./http-client-worker.js', import.meta.url));
  private readonly pending = new Map<number, (answer: ClientAnswer) => void>();
  private nextId = 0;

  constructor() {
    this.worker.on('message', (answer: ClientAnswer) => {
      this.pending.get(answer.id)?.(answer);
      this.pending.delete(answer.id);
    });
    this.worker.unref();
  }

  /** One call; `ms` is its time as the client saw it, `text` the body when `keepBody`. */
  request(
    url: string,
    auth: string,
    body: string,
    options: { contentType?: string; keepBody?: boolean } = {},
  ): Promise<{ status: number; ms: number; text: string; retryAfter?: string }> {
    const id = this.nextId++;
    const headers = {
      'content-type': options.contentType ?? 'application/json',
      'content-length': Buffer.byteLength(body),
      authorization: auth,
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, (answer) =>
        'error' in answer
          ? reject(new Error(answer.error))
          : resolve({ status: answer.status, ms: answer.ms, text: answer.text ?? '', retryAfter: answer.retryAfter }),
      );
      this.worker.postMessage({ id, url, headers, body, keepBody: options.keepBody ?? false } satisfies ClientRequest);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
