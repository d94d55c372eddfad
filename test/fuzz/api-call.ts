/**
 * Plain API calls the fuzzer itself needs (setup, well-formed events,
 * read-back, isolation probes), over the same raw socket client and with a
 * deadline, so that a hung service cannot hang the fuzzer.
 */
import { encodeRequest, sendRaw, type RawOutcome } from './raw-http.js';

export interface ApiAnswer {
  status: number;
  /** The parsed envelope, or undefined when the body is not JSON. */
  json: any;
  text: string;
  outcome: RawOutcome;
}

export async function apiCall(
  port: number,
  op: string,
  body: unknown,
  headers: Array<[string, string]>,
  deadlineMs = 30_000,
  contentType = 'application/json',
): Promise<ApiAnswer> {
  const bytes =
    body === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(body)
        ? body
        : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const outcome = await sendRaw(
    port,
    encodeRequest(
      { method: 'POST', target: `/v2.23/${op}`, headers: [['content-type', contentType], ...headers], body: bytes },
      `127.0.0.1:${port}`,
    ),
    deadlineMs,
  );
  if (outcome.kind !== 'answer')
    return {
      status: 0,
      json: undefined,
      text: outcome.kind === 'hang' ? 'no answer (deadline)' : outcome.error,
      outcome,
    };
  const text = outcome.body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: outcome.status, json, text, outcome };
}

export function bearer(token: string): Array<[string, string]> {
  return [['authorization', `Bearer ${token}`]];
}

export function basic(accessKey: string, secretKey: string): Array<[string, string]> {
  return [['authorization', `Basic ${Buffer.from(`${accessKey}:${secretKey}`).toString('base64')}`]];
}
