/**
 * Prometheus metrics of the gRPC ingest front: calls by method and status,
 * StreamEvents streams open, chunk acknowledgements by status. Methods and
 * statuses are the service's own fixed names; grpc-js answers unknown
 * methods itself (UNIMPLEMENTED) without reaching these counters.
 */
import { status as GrpcStatusCode } from '@grpc/grpc-js';
import { Counter, DURATION_BUCKETS, Gauge, Histogram, type Registry } from '../../shared/observability/metrics.js';

export type GrpcMethod = 'Add' | 'AddBatch' | 'StreamEvents';

export const GRPC_METHODS: readonly GrpcMethod[] = ['Add', 'AddBatch', 'StreamEvents'];

export interface GrpcMetrics {
  /** A call ended with `code` (a gRPC status code) after `seconds`. */
  callEnded(method: GrpcMethod, code: number, seconds: number): void;
  streamOpened(): void;
  streamClosed(): void;
  /** A StreamEvents chunk was acknowledged: OK, or refused with the status of its error. */
  chunkAcked(code: number): void;
}

/** The status's name (OK, INVALID_ARGUMENT, ...); any number outside the enum is UNKNOWN. */
export function grpcStatusName(code: number): string {
  const name = (GrpcStatusCode as unknown as Record<number, string | undefined>)[code];
  return typeof name === 'string' ? name : 'UNKNOWN';
}

export function createGrpcMetrics(registry: Registry): GrpcMetrics {
  const registers = [registry];
  const calls = new Counter<'method' | 'code'>({
    name: 'clearml_grpc_calls_total',
    help: 'gRPC ingest calls ended, by method and gRPC status (CANCELLED: the client went away)',
    labelNames: ['method', 'code'],
    registers,
  });
  const duration = new Histogram<'method'>({
    name: 'clearml_grpc_call_duration_seconds',
    help: 'Duration of gRPC ingest calls, by method (a StreamEvents call lasts as long as its stream)',
    labelNames: ['method'],
    buckets: [...DURATION_BUCKETS, 60, 300, 1800, 3600],
    registers,
  });
  const streams = new Gauge({ name: 'clearml_grpc_streams_open', help: 'StreamEvents calls open now', registers });
  const acks = new Counter<'code'>({
    name: 'clearml_grpc_chunk_acks_total',
    help: "StreamEvents chunks acknowledged, by gRPC status: OK (added, maybe with per-event errors) or the status of the chunk's refusal",
    labelNames: ['code'],
    registers,
  });
  for (const method of GRPC_METHODS) calls.inc({ method, code: 'OK' }, 0);
  acks.inc({ code: 'OK' }, 0);
  return {
    callEnded(method, code, seconds) {
      calls.inc({ method, code: grpcStatusName(code) });
      duration.observe({ method }, seconds);
    },
    streamOpened: () => streams.inc(),
    streamClosed: () => streams.dec(),
    chunkAcked(code) {
      acks.inc({ code: grpcStatusName(code) });
    },
  };
}
