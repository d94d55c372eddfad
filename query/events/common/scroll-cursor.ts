/**
 * Signed cursors (events.md §10): stateless scroll ids carrying the
 * selection, position and total of a paged read, valid on any query
 * process and forever. A token is `<base64url JSON>.<base64url MAC>`; the
 * MAC (HMAC-SHA256, truncated to 128 bits) covers the company and an
 * optional purpose too, so neither needs to travel in the token, and a
 * cursor replayed by another company or to another operation fails.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { apiError, type ApiError } from '../../../shared/errors/error-catalogue.js';

const MAC_BYTES = 16;
const MAC_CHARS = 22; // base64url of 16 bytes, unpadded (TOKEN_SHAPE checks it)
/** Longer tokens are refused before any work (cursors are a few hundred bytes). */
const MAX_TOKEN_CHARS = 16_384;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

export type CursorSecret = string | Buffer;

/**
 * MACs this process made lately. A paged read signs a cursor in every answer, and a UI polling a
 * page signs the same one again and again: HMAC-SHA256 costs the service ~45-65 µs a call (OpenSSL's
 * code is cold between requests; ~5 µs in a loop), a lookup ~4 (docs/performance.md, "Cursor
 * MACs"). Only `encodeCursor` adds to it, so forged tokens cannot crowd out real ones; an entry
 * holds its secret, and a hit is only taken under the same one.
 */
const recentMacs = new LRUCache<string, { readonly secret: CursorSecret; readonly mac: Buffer }>({
  // In characters of input, plus what an entry's objects cost beside it: a few MB at most; a cursor
  // larger than the whole budget (a filter of very many metrics) is signed each time, not kept.
  maxSize: 2 << 20,
  sizeCalculation: (_value, input) => input.length + 256,
});
let keyOf: { secret: CursorSecret; key: KeyObject } | undefined;

function macInput(company: string, purpose: string, body: string): string {
  // NUL separates the parts: it cannot occur in the base64url body, and the
  // length prefix keeps company/purpose boundaries unambiguous.
  return `${company.length}:${company}\0${purpose.length}:${purpose}\0${body}`;
}

function mac(secret: CursorSecret, input: string): Buffer {
  const recent = recentMacs.get(input);
  if (recent !== undefined && recent.secret === secret) return recent.mac;
  // A key object made once: given the secret itself, createHmac imports it on every call.
  if (keyOf?.secret !== secret) keyOf = { secret, key: createSecretKey(Buffer.from(secret)) };
  return createHmac('sha256', keyOf.key).update(input).digest().subarray(0, MAC_BYTES);
}

/** An opaque token for `payload` (a JSON-serialisable object), bound to the company (and purpose, when given). */
export function encodeCursor(secret: CursorSecret, company: string, payload: object, purpose = ''): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const input = macInput(company, purpose, body);
  const signature = mac(secret, input);
  recentMacs.set(input, { secret, mac: signature });
  return `${body}.${signature.toString('base64url')}`;
}

/**
 * The payload of a token made by `encodeCursor` with the same secret,
 * company and purpose; undefined for anything else (malformed, tampered,
 * another company's or purpose's token). The caller answers 400/1104.
 */
export function decodeCursor(
  secret: CursorSecret,
  company: string,
  token: string,
  purpose = '',
): Record<string, unknown> | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !TOKEN_SHAPE.test(token)) return undefined;
  const body = token.slice(0, token.length - MAC_CHARS - 1);
  // Compared as text: base64url decoding ignores the last character's low
  // bits, so comparing bytes would accept several spellings of one MAC.
  const expected = Buffer.from(mac(secret, macInput(company, purpose, body)).toString('base64url'));
  if (!timingSafeEqual(Buffer.from(token.slice(-MAC_CHARS)), expected)) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** 400/1104 `Invalid scroll id: scroll_id=<value>` (`None` when absent), for bad cursors and missing navigation states. */
export function invalidScrollIdError(scrollId: string | null | undefined): ApiError {
  return apiError('invalid_scroll_id', undefined, { scroll_id: scrollId ?? null });
}
