/**
 * An HTTP client of the fault load, as the ClearML SDK sends events: one
 * request at a time, `events.add_batch` with an NDJSON body
 * (`application/json-lines`), a Bearer token, keep-alive connections, and
 * the SDK's retry of the same bytes (sdk-retry.ts).
 */
import http from 'node:http';
import { sendBatchesInTurn, type LoadClientOptions } from './load-client.js';
import type { Attempt } from './sdk-retry.js';

export async function runHttpClient(baseUrl: string, options: LoadClientOptions): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = `${baseUrl}/v2.23/events.add_batch`;
  try {
    await sendBatchesInTurn(options, (batch) => {
      const body = Buffer.from(batch.events.map((e) => JSON.stringify(e)).join('\n'));
      const headers = {
        authorization: `Bearer ${options.token}`,
        'content-type': 'application/json-lines',
        'content-length': String(body.length),
      };
      return () => postOnce(url, agent, headers, body, options.policy.timeoutMs);
    });
  } finally {
    agent.destroy();
  }
}

/** One POST; any transport failure or timeout is "no answer". */
export function postOnce(
  url: string,
  agent: http.Agent,
  headers: Record<string, string>,
  body: Buffer | string,
  timeoutMs: number,
): Promise<Attempt> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(attempt);
    };
    const request = http.request(url, { method: 'POST', agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => settle({ kind: 'no-answer', reason: `answer cut: ${error.message}` }));
      response.on('end', () => settle(answerOf(response, Buffer.concat(chunks).toString('utf8'))));
    });
    const timer = setTimeout(() => {
      settle({ kind: 'no-answer', reason: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) =>
      settle({ kind: 'no-answer', reason: (error as NodeJS.ErrnoException).code ?? error.message }),
    );
    request.end(body);
  });
}

function answerOf(response: http.IncomingMessage, text: string): Attempt {
  const code = response.statusCode ?? 0;
  const retryAfter = response.headers['retry-after'];
  let envelope: { meta?: { result_msg?: string }; data?: { added?: number } } = {};
  try {
    envelope = JSON.parse(text);
  } catch {
    // not an envelope: a proxy's or a crashed server's answer
  }
  return {
    kind: 'answered',
    code,
    added: envelope.data?.added,
    message: envelope.meta?.result_msg ?? text.slice(0, 200),
    retryAfterSec: retryAfter === undefined ? undefined : Number(retryAfter),
  };
}
