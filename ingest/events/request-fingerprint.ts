/**
 * What makes a re-sent request recognisable (faults issue, "Retries are
 * idempotent"). The ClearML SDK re-sends an add_batch whose answer it did
 * not get (no answer, a 5xx), byte for byte; if the first copy was stored,
 * the second must store nothing. The JetStream message ids of a request are
 * derived from its fingerprint: the caller's company, the kind of request,
 * and either the key the client chose (`Idempotency-Key` header, gRPC
 * `idempotency-key` metadata) or a SHA-256 of the request's bytes. JetStream
 * drops a message whose id it has seen within the stream's de-duplication
 * window (NATS_DUPLICATE_WINDOW_MS), so a re-send stores only what the first
 * copy did not. docs/ingest.md ("Re-sent requests") says what this promises.
 */
import { createHash, type Hash } from 'node:crypto';
import { apiError } from '../../shared/errors/error-catalogue.js';
import type { RequestIdentity } from './ingest-port.js';

/** The HTTP header (and gRPC metadata key) of a client-chosen key. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** What a client-chosen key may be: visible ASCII, as HTTP header values and gRPC metadata carry it. */
const KEY = /^[\x21-\x7e]{1,255}$/;

export type RequestKind = 'http.add' | 'http.add_batch' | 'grpc.add' | 'grpc.add_batch' | 'grpc.chunk';

export class RequestFingerprint implements RequestIdentity {
  private readonly hash: Hash | undefined;
  private digest: Buffer | undefined;

  private constructor(
    private readonly kind: RequestKind,
    private readonly clientKey: string | undefined,
    private readonly scope: string,
  ) {
    this.hash = clientKey === undefined ? createHash('sha256') : undefined;
  }

  /**
   * A fingerprint of the request's bytes, unless the client gave a key
   * (400/12 when that key is malformed). `scope` tells requests under one
   * key apart (a gRPC stream's key names every chunk, with its chunk id).
   */
  static of(kind: RequestKind, clientKey: string | undefined, scope = ''): RequestFingerprint {
    if (clientKey !== undefined && !KEY.test(clientKey)) {
      throw apiError('validation_error', 'idempotency key must be 1 to 255 visible ASCII characters');
    }
    return new RequestFingerprint(kind, clientKey, scope);
  }

  get clientKeyed(): boolean {
    return this.clientKey !== undefined;
  }

  /** Feeds request bytes, in order (ignored when the client gave a key). */
  update(bytes: Uint8Array | string): void {
    this.hash?.update(bytes);
  }

  /**
   * The base of the request's message ids: one company's requests never
   * share ids with another's, and the kind keeps an HTTP body from matching
   * a gRPC chunk of the same bytes. 128 bits of SHA-256, base64url.
   */
  idFor(company: string): string {
    const id = createHash('sha256').update(`${this.kind}\0${company.length}:`).update(company);
    if (this.hash) id.update('b').update((this.digest ??= this.hash.digest()));
    else id.update(`k${this.clientKey!.length}:`).update(this.clientKey!).update(this.scope);
    return id.digest('base64url').slice(0, 22);
  }
}
