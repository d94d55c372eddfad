/**
 * What a target contributes to a process. Each target (ingest, writer,
 * query) has one composition root, a TargetModule: given the process's
 * services it builds its adapters and domain objects and returns its
 * operations, components and readiness checks. Building connects nothing;
 * components connect in start().
 */
import type { Registry } from 'prom-client';
import type { Authenticator } from '../auth/authenticator.js';
import type { TokenService } from '../auth/token-service.js';
import type { Config } from '../config/config.js';
import type { ReadinessReport } from '../http/api-server.js';
import type { BodyMemoryBudget } from '../http/body-memory-budget.js';
import type { ConnectionCap } from '../http/connection-cap.js';
import type { Logger } from '../observability/logger.js';
import type { Operation } from '../protocol/operation.js';
import type { Component, ReadinessCheck } from './component.js';
import type { StoreHub } from './store-hub.js';

export interface ProcessServices {
  readonly config: Readonly<Config>;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly stores: StoreHub;
  readonly authenticator: Authenticator;
  readonly tokens: TokenService;
  /** Server secret for signed cursors and tokens (shared by every process of a deployment). */
  readonly signingSecret: string;
  /** Request bodies and gRPC messages held in memory at once (HTTP_MAX_BUFFERED_BODY_BYTES): one bound per process. */
  readonly bodyBudget: BodyMemoryBudget;
  /** The client connections each listener of the process holds at once (MAX_CONNECTIONS). */
  readonly connectionCap: ConnectionCap;
  /** Ports bound by components (e.g. `grpc`), for logs and tests. */
  readonly boundPorts: Map<string, number>;
  /** The process's readiness, every target's checks included: what `/ready` answers (the gRPC health service reports it too). */
  readiness(): Promise<ReadinessReport>;
}

export interface TargetParts {
  readonly operations?: Operation[];
  readonly components?: Component[];
  readonly readiness?: ReadinessCheck[];
}

export type TargetModule = (services: ProcessServices) => TargetParts;

export const TARGET_NAMES = ['all', 'ingest', 'writer', 'query'] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

/** What each target serves, for `--help`. */
export const TARGET_SUMMARIES: Readonly<Record<TargetName, string>> = {
  all: 'ingest, writer and query in one process on one HTTP port (what npm start runs)',
  ingest: 'events.add and events.add_batch over HTTP and gRPC, published to JetStream',
  writer: 'JetStream consumers that store events into InfluxDB and Redis',
  query: 'every read operation, reports.* and auth.login',
};

export function isTargetName(value: string): value is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(value);
}
