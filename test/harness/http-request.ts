/**
 * A raw HTTP request through node:http, for what fetch refuses to send:
 * GET with a body, which the ClearML SDK uses for every call.
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    if (options.body !== undefined) request.setHeader('content-length', Buffer.byteLength(options.body));
    request.end(options.body);
  });
}

/** node:http headers as a fetch Headers object (case-insensitive get). */
export function asHeaders(headers: http.IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return out;
}
