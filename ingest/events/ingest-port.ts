/**
 * The one ingest entry point. Both decoders (HTTP NDJSON/JSON and gRPC
 * protobuf) turn each submitted event into a plain object with the JSON
 * field names of events.md §1.2 and feed it to an IngestSession: there is
 * exactly one validation path.
 */
import type { Identity } from '../../shared/auth/identity.js';

export interface IngestRequestContext {
  readonly identity: Identity;
  /** X-ClearML-Worker / X-Trains-Worker (or gRPC metadata x-clearml-worker): default `worker` of events. */
  readonly workerHeader?: string;
  /** The caller's Authorization value, for companion mode's questions to the ClearML server; HTTP calls carry it in the async context already. */
  readonly credential?: string;
  /** `allow_locked` given outside the events (events.add query string). */
  readonly allowLockedDefault?: boolean;
  /** Aborted when the client goes away: the session stops its work. */
  readonly signal?: AbortSignal;
  /** What makes a re-send of this request recognisable (ingest/events/request-fingerprint.ts); absent: never de-duplicated. */
  readonly fingerprint?: RequestIdentity;
}

/** The id a request's messages are named after: equal for a re-send of the same request by the same company. */
export interface RequestIdentity {
  idFor(company: string): string;
  /** The client named the request (a key), rather than its bytes: a re-send may be encoded differently. */
  readonly clientKeyed: boolean;
}

/** events.add / add_batch response (events.md §2.2). */
export interface IngestResult {
  added: number;
  errors: number;
  errors_info: Record<string, number>;
}

export interface IngestSession {
  /**
   * Checks one raw event (events.md §1.3) and keeps its compact encoded
   * form; per-event rejections are counted, never thrown. Synchronous so
   * that decoders can call it per line as bytes arrive.
   */
  add(rawEvent: Record<string, unknown>): void;
  /**
   * NDJSON's fused path (plain-scalar-line.ts): when the line starting at `bytes[start]`
   * (ending at its `\n` or at `end`) is a plain scalar line, does what `add` does with the
   * object JSON.parse makes of it and answers where the line ends; else answers -1, having
   * done nothing.
   */
  addPlainScalarLine?(bytes: Buffer, start: number, end: number): number;
  /**
   * StreamEvents' fused path (plain-scalar-event.ts): when `bytes[start, end)`, an Event
   * message, is a plain scalar event, does what `add` does with the raw event the chunk
   * reader makes of it and answers true; else answers false, having done nothing.
   */
  addPlainScalarEvent?(bytes: Buffer, start: number, end: number): boolean;
  /** Number of events offered so far. */
  readonly count: number;
  /**
   * While what the session holds waits for a slow disk (its spill file's
   * writes), a promise of when it does not: a decoder that can pause its
   * input awaits it before adding more.
   */
  drained?(): Promise<void> | undefined;
  /**
   * Applies request-level rules, registers new entities, publishes the
   * accepted events to JetStream and resolves after every PubAck. Throws an
   * ApiError (400/17, 400/12, 400/131, 503/0, 429/0).
   */
  commit(): Promise<IngestResult>;
  /** Releases held events without publishing: `cause` is the failure (a parse error), none when the client went away. */
  discard(cause?: unknown): void;
}

export interface IngestService {
  begin(context: IngestRequestContext): IngestSession;
}
