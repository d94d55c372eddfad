/** What a process holds of request bodies and gRPC messages (docs/protocol.md, "Bodies held in memory"), from its /metrics. */
import { httpRequest } from './http-request.js';
import { eventually } from './eventually.js';
import { parsePrometheusText, sampleSum } from './prometheus-text.js';

export async function heldBodyBytes(baseUrl: string): Promise<number> {
  return sampleSum(
    parsePrometheusText((await httpRequest(`${baseUrl}/metrics`)).text),
    'clearml_http_buffered_body_bytes',
  );
}

/** Waits until the process holds exactly `bytes`. */
export function untilHeldBodyBytes(baseUrl: string, bytes: number): Promise<number> {
  return eventually(
    () => heldBodyBytes(baseUrl),
    (held) => held === bytes,
    { timeoutMs: 10_000, everyMs: 20, what: `${bytes} bytes of bodies held` },
  );
}
