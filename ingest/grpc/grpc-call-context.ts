/**
 * What every EventsIngest call needs before it touches events: the caller's
 * identity and worker from the call metadata, and an abort signal tied to
 * the client going away.
 */
import type { Metadata } from '@grpc/grpc-js';
import type { Identity } from '../../shared/auth/identity.js';
import type { IngestRequestContext, IngestService } from '../events/ingest-port.js';
import type { IngestMetrics } from '../events/ingest-metrics.js';
import type { GrpcMetrics } from './grpc-metrics.js';

export interface GrpcIngestLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the handlers share; the server options provide it. */
export interface GrpcIngestDeps {
  readonly ingest: IngestService;
  /** Throws an ApiError (401) for missing or bad credentials. */
  authenticate(authorizationHeader: string | undefined): Identity;
  readonly logger: GrpcIngestLogger;
  readonly metrics?: GrpcMetrics;
  /** Counts the bytes of the messages received. */
  readonly ingestMetrics?: IngestMetrics;
}

/** Seconds since `started` (process.hrtime.bigint()). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The part of a grpc-js server call that reports cancellation. */
export interface CancellableCall {
  on(event: 'cancelled', listener: () => void): unknown;
  removeListener(event: 'cancelled', listener: () => void): unknown;
}

export interface CallCancellation {
  /** Aborted when the client cancels, the deadline passes or the server force-stops. */
  readonly signal: AbortSignal;
  /**
   * Marks the call answered. grpc-js reports every end of a call as
   * 'cancelled', answered ones included: without this the session's signal
   * would claim that a client went away after it got its answer.
   */
  settle(): void;
}

export function firstMetadataValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Authenticates the call (once: credentials cannot change within a call) and
 * builds the session context. Throws the authenticator's ApiError.
 */
export function ingestContextFor(deps: GrpcIngestDeps, metadata: Metadata, signal: AbortSignal): IngestRequestContext {
  const credential = firstMetadataValue(metadata, 'authorization');
  const identity = deps.authenticate(credential);
  const workerHeader =
    firstMetadataValue(metadata, 'x-clearml-worker') ?? firstMetadataValue(metadata, 'x-trains-worker');
  return workerHeader === undefined ? { identity, signal, credential } : { identity, workerHeader, signal, credential };
}

export function watchCancellation(call: CancellableCall): CallCancellation {
  const controller = new AbortController();
  const onCancelled = (): void => controller.abort();
  call.on('cancelled', onCancelled);
  return { signal: controller.signal, settle: () => call.removeListener('cancelled', onCancelled) };
}
