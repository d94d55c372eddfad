/**
 * Bounds the client connections a process holds on each of its listeners
 * (the HTTP API, the gRPC ingest). Every timeout ends a connection in
 * bounded time, but nothing bounded how many arrive meanwhile: 15,000
 * connections that sent nothing held 85 MB of an ingest process on its HTTP
 * port and 157 MB on its gRPC port, and past the process's file descriptor
 * limit it could open no connection to its own stores. Beyond the cap, Node
 * closes a new connection as soon as it is accepted (`maxConnections`); the
 * clients already connected go on. docs/protocol.md, "Connections".
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { Counter, Gauge, type Registry } from 'prom-client';

export type Listener = 'http' | 'grpc' | 'ops';
/** The listeners MAX_CONNECTIONS bounds each; the operations listener has a cap of its own. */
const CLIENT_LISTENERS = 2;

/** File descriptors kept for the process's own use: store connections, files, the writer thread's. */
export const RESERVED_DESCRIPTORS = 512;

export class ConnectionCap {
  private readonly open: Gauge<'listener'> | undefined;
  private readonly dropped: Counter<'listener'> | undefined;

  /** `max` connections on each listener. */
  constructor(
    readonly max: number,
    registry?: Registry,
  ) {
    const registers = registry ? [registry] : undefined;
    this.open = registers
      ? new Gauge({
          name: 'clearml_connections_open',
          help: 'Client connections open now, by listener (MAX_CONNECTIONS bounds http and grpc each, OPS_MAX_CONNECTIONS ops)',
          labelNames: ['listener'],
          registers,
        })
      : undefined;
    this.dropped = registers
      ? new Counter({
          name: 'clearml_connections_dropped_total',
          help: 'Client connections closed as soon as accepted, by listener: the listener held its cap (MAX_CONNECTIONS, OPS_MAX_CONNECTIONS)',
          labelNames: ['listener'],
          registers,
        })
      : undefined;
  }

  /** Caps `server` at `max` connections (MAX_CONNECTIONS unless given). */
  apply(server: Server, listener: Listener, max = this.max): void {
    server.maxConnections = max;
    const open = this.open;
    if (open) {
      open.set({ listener }, 0);
      server.on('connection', (socket) => {
        open.inc({ listener });
        socket.once('close', () => open.dec({ listener }));
      });
    }
    const dropped = this.dropped;
    if (dropped) {
      dropped.inc({ listener }, 0);
      server.on('drop', () => dropped.inc({ listener }));
    }
  }
}

/**
 * The connections each client listener (HTTP API, gRPC) may hold: the configured number, or fewer, so that
 * both full, and the operations listener's `opsConnections`, leave the process the descriptors it needs.
 */
export function connectionCapFor(configured: number, descriptorLimit: number | undefined, opsConnections = 0): number {
  if (descriptorLimit === undefined) return configured;
  const forClients = descriptorLimit - RESERVED_DESCRIPTORS - opsConnections;
  return Math.max(1, Math.min(configured, Math.floor(forClients / CLIENT_LISTENERS)));
}

/** The process's soft limit on open files, where the system tells it (Linux); undefined elsewhere or unlimited. */
export function openFileLimit(limitsText: string | undefined = readProcLimits()): number | undefined {
  const line = limitsText?.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : undefined;
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}
