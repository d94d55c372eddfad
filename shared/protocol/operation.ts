/**
 * An API operation is declared once: its name, versions, request schema and
 * handler. Transports (the HTTP server) resolve, authenticate, parse and
 * dispatch; handlers see validated requests and return the `data` object.
 */
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Identity } from '../auth/identity.js';
import type { JsonBytesWriter } from './json-bytes.js';
import { compareVersions, parseVersion, type ApiVersion } from './endpoint-path.js';
import type { JsonSchema } from './request-json-schema.js';

export interface CallContext {
  readonly identity: Identity;
  readonly callId: string;
  readonly log: Logger;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Aborted when the client disconnects before the answer. */
  readonly signal: AbortSignal;
  /** Time the call was received (epoch ms). */
  readonly receivedAt: number;
}

/** A successful answer that is not enveloped (events.download_task_log). */
export interface RawReply {
  readonly raw: true;
  readonly headers: Record<string, string>;
  readonly body: Readable | string;
}

export function isRawReply(value: unknown): value is RawReply {
  return typeof value === 'object' && value !== null && (value as RawReply).raw === true;
}

/**
 * A `data` object already serialised (as text, or written as UTF-8 bytes),
 * embedded in the envelope as is. For answers made mostly of stored JSON
 * (log pages): parsing it only to serialise it again would cost more than
 * the store read itself.
 */
export class JsonText {
  constructor(readonly json: string | JsonBytesWriter) {}
}

/**
 * A `data` object written progressively: the envelope head goes out first,
 * then each chunk as it is produced, so an answer of tens of MB (a page
 * holding a whole log) is sent while it is read and never held whole. An
 * error after the first chunk can no longer be enveloped: the connection is
 * closed mid-answer, which the client sees as a failed call.
 */
export class JsonStream {
  constructor(readonly chunks: () => AsyncIterable<Buffer>) {}
}

export interface Extras {
  /** Extra response headers for an enveloped answer (auth.login's cookie). */
  setHeader(name: string, value: string): void;
}

interface OperationBase {
  readonly name: string;
  /** Minimum version of this implementation (protocol.md §2.3), reported as actual_version. */
  readonly minVersion: string;
  /** Lowest version still served (with actual_version "1.0"), for the endpoints the table marks "served from 1.0". */
  readonly servedFrom?: string;
  /** Set for auth.login: the only operation that accepts Basic-authenticated refresh semantics (all accept Basic anyway). */
  readonly description?: string;
  /**
   * The operation changes nothing: a call authenticated by the login cookie
   * may come without a ClearML client header (a browser link, such as the web
   * UI's log download). Unset means it may change state, and such a call is
   * refused (docs/protocol.md, "Cross-site requests").
   */
  readonly readOnly?: boolean;
  /**
   * The operation runs a deletion in the writers: a control message at its
   * place in its entity's partition, whose events wait behind it. Its calls are
   * shared between companies like reads (DELETE_MAX_RUNNING_CALLS; docs/protocol.md,
   * "Calls shared between companies").
   */
  readonly deletion?: boolean;
  /** Set when a successful answer is not enveloped (RawReply): its media type and what it holds, for the API description. */
  readonly rawAnswer?: { readonly mediaType: string; readonly description: string };
}

/** An operation whose call data is parsed into an object and validated. */
export interface JsonOperation<Req> extends OperationBase {
  readonly kind: 'json';
  readonly request: z.ZodType<Req>;
  handle(request: Req, context: CallContext, extras: Extras): Promise<unknown>;
}

/** What a streamed operation is told of its call besides the body. */
export interface StreamMeta {
  contentType: string | undefined;
  search: string;
  /** Reads the body whole, under the process's budget of bodies held in memory (shared/http/body-memory-budget.ts). */
  readWhole(body: Readable): Promise<Buffer>;
}

/** An operation that consumes the raw body itself, as it streams in (events.add_batch). */
export interface StreamOperation extends OperationBase {
  readonly kind: 'stream';
  /** The body's media types and their JSON Schema, for the API description (no zod schema: the handler reads the body itself). */
  readonly bodyMediaTypes: Readonly<Record<string, JsonSchema>>;
  handle(body: Readable, meta: StreamMeta, context: CallContext): Promise<unknown>;
}

export type Operation = JsonOperation<any> | StreamOperation;

export function defineOperation<Req>(operation: Omit<JsonOperation<Req>, 'kind'>): JsonOperation<Req> {
  return { kind: 'json', ...operation };
}

export function defineStreamOperation(operation: Omit<StreamOperation, 'kind'>): StreamOperation {
  return { kind: 'stream', ...operation };
}

/** The same operations, declared read-only (see OperationBase.readOnly). */
export function readOnlyOperations(...operations: Operation[]): Operation[] {
  return operations.map((operation) => ({ ...operation, readOnly: true }));
}

/** The same operations, declared as deletions (see OperationBase.deletion). */
export function deletionOperations(...operations: Operation[]): Operation[] {
  return operations.map((operation) => ({ ...operation, deletion: true }));
}

export interface ResolvedOperation {
  readonly operation: Operation;
  readonly actualVersion: ApiVersion;
}

export class OperationRegistry {
  private readonly operations = new Map<string, { operation: Operation; min: ApiVersion; servedFrom: ApiVersion }>();

  register(...operations: Operation[]): this {
    for (const operation of operations) {
      if (this.operations.has(operation.name)) throw new Error(`operation ${operation.name} registered twice`);
      const min = parseVersion(operation.minVersion);
      this.operations.set(operation.name, {
        operation,
        min,
        servedFrom: parseVersion(operation.servedFrom ?? operation.minVersion),
      });
    }
    return this;
  }

  /** The implementation serving `name` at `version`, or undefined (404). */
  resolve(name: string, version: ApiVersion): ResolvedOperation | undefined {
    const entry = this.operations.get(name);
    if (entry === undefined) return undefined;
    if (compareVersions(version, entry.min) >= 0) return { operation: entry.operation, actualVersion: entry.min };
    if (compareVersions(version, entry.servedFrom) >= 0)
      return { operation: entry.operation, actualVersion: entry.servedFrom };
    return undefined;
  }

  names(): string[] {
    return [...this.operations.keys()].sort();
  }

  /** Every registered operation, by name. */
  list(): Operation[] {
    return this.names().map((name) => this.operations.get(name)!.operation);
  }
}
