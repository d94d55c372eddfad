/**
 * grpc.health.v1.Health on the gRPC server (grpc_health_probe, Kubernetes'
 * gRPC probes, load balancers), answered by grpc-node's own implementation.
 * The status follows the process's readiness, the report `/ready` answers:
 * NOT_SERVING while a store is not ready. Decisions: docs/grpc.md.
 */
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';

export interface GrpcHealthOptions {
  /** Every service name the status applies to; `''` (the whole server) is always included. */
  services: readonly string[];
  /** True when the process is ready (the `/ready` report). */
  ready(): Promise<boolean>;
  /** Time between two readiness checks. */
  intervalMs: number;
  logger: { warn(obj: object, msg: string): void };
}

/** The part of a grpc-js Server the health implementation registers itself with. */
type ServerLike = Parameters<HealthImplementation['addToServer']>[0];
/** What stop() needs of a Watch call. */
interface WatchCall {
  on(event: 'cancelled', listener: () => void): unknown;
  end(): void;
}
type WatchHandler = (call: WatchCall) => void;

export class GrpcHealth {
  private readonly health = new HealthImplementation();
  private readonly names: string[];
  private readonly watches = new Set<WatchCall>();
  private status: ServingStatus | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: GrpcHealthOptions) {
    this.names = ['', ...options.services];
    this.publish('NOT_SERVING');
  }

  /**
   * Registers the service. Watch calls are kept, so that stop() can end them:
   * a Watch never ends by itself, and a server waiting for its calls would
   * wait for every open Watch until the grace period forced it down.
   */
  addToServer(server: ServerLike): void {
    const watches = this.watches;
    this.health.addToServer({
      addService(service, implementation) {
        const watch = implementation.watch as WatchHandler;
        server.addService(service, {
          ...implementation,
          watch(call: WatchCall) {
            watches.add(call);
            call.on('cancelled', () => watches.delete(call));
            watch(call);
          },
        });
      },
    });
  }

  /** Reads readiness once before the server answers, then every `intervalMs`. */
  async start(): Promise<void> {
    await this.refresh();
    this.schedule();
  }

  /** NOT_SERVING from now on; open Watch calls get it, then end. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.publish('NOT_SERVING');
    for (const call of this.watches) call.end();
    this.watches.clear();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.refresh().finally(() => this.schedule()), this.options.intervalMs);
    this.timer.unref();
  }

  private async refresh(): Promise<void> {
    let ready = false;
    try {
      ready = await this.options.ready();
    } catch (err) {
      this.options.logger.warn({ err }, 'readiness check failed; gRPC health is NOT_SERVING');
    }
    if (!this.stopped) this.publish(ready ? 'SERVING' : 'NOT_SERVING');
  }

  private publish(status: ServingStatus): void {
    // Watchers are told of changes only (the library writes on every setStatus).
    if (status === this.status) return;
    this.status = status;
    for (const name of this.names) this.health.setStatus(name, status);
  }
}
