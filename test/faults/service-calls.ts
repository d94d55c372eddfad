/**
 * Plain JSON calls of the bench to the service (login, reads, probes), with
 * a timeout: a stalled process must not stall the bench.
 */
import type { BenchCredential } from './fault-deployment.js';

export interface CallAnswer {
  status: number;
  body: { meta?: { result_msg?: string }; data?: any };
}

export async function callOperation(
  baseUrl: string,
  operation: string,
  body: unknown,
  auth: string,
  timeoutMs: number,
): Promise<CallAnswer> {
  const response = await fetch(`${baseUrl}/v2.23/${operation}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: CallAnswer['body'] = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { meta: { result_msg: text.slice(0, 200) } };
  }
  return { status: response.status, body: parsed };
}

/** A Bearer token from the query process's auth.login, as the SDK gets one. */
export async function login(queryUrl: string, credential: BenchCredential): Promise<string> {
  const basic = `Basic ${Buffer.from(`${credential.access_key}:${credential.secret_key}`).toString('base64')}`;
  const answer = await callOperation(queryUrl, 'auth.login', undefined, basic, 10_000);
  if (answer.status !== 200) throw new Error(`auth.login answered ${answer.status}: ${answer.body.meta?.result_msg}`);
  return answer.body.data.token as string;
}
