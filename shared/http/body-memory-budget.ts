/**
 * Bounds the request bodies a process holds in memory at once, HTTP bodies
 * and gRPC messages alike (one budget per process). A buffered
 * call (every operation but a streamed add_batch body) is read whole before
 * it is parsed, and MAX_BODY_BYTES bounds one body, not how many arrive
 * together: 64 concurrent 60 MiB bodies would hold 3.8 GB. Bytes are taken as the
 * body arrives (its declared Content-Length at once) and given back when the
 * call is answered, since the parsed call data lives until then.
 *
 * Beyond the budget a call is refused at once (429 with Retry-After), never
 * queued: a call that waited while holding part of its body could wait for
 * bodies that wait for it. A company may hold at most a quarter of the
 * budget, so that one company's large bodies leave room for everyone else's.
 * A call that finds nothing held (by anyone, or by its company) may take its
 * whole body: MAX_BODY_BYTES still bounds it.
 */
import { Gauge, type Registry } from 'prom-client';
import { apiError } from '../errors/error-catalogue.js';

export class BodyMemoryBudget {
  private used = 0;
  private readonly byCompany = new Map<string, number>();
  private readonly gauge: Gauge | undefined;
  readonly perCompany: number;

  constructor(
    readonly limit: number,
    registry?: Registry,
  ) {
    this.perCompany = Math.floor(limit / 4);
    this.gauge = registry
      ? new Gauge({
          name: 'clearml_http_buffered_body_bytes',
          help: 'Bytes of request bodies held in memory by calls being read or answered, and of gRPC messages being received (HTTP_MAX_BUFFERED_BODY_BYTES bounds them)',
          registers: [registry],
        })
      : undefined;
  }

  /** A hold for one call of `company`: what it takes is given back by `release`. */
  hold(company: string): BodyHold {
    let held = 0;
    return {
      take: (bytes) => {
        this.take(company, bytes);
        held += bytes;
      },
      give: (bytes) => {
        const given = Math.min(bytes, held);
        this.give(company, given);
        held -= given;
      },
      release: () => {
        this.give(company, held);
        held = 0;
      },
    };
  }

  get inUse(): number {
    return this.used;
  }

  private take(company: string, bytes: number): void {
    const companyUsed = this.byCompany.get(company) ?? 0;
    if ((companyUsed > 0 && companyUsed + bytes > this.perCompany) || (this.used > 0 && this.used + bytes > this.limit))
      throw apiError('request_bodies_overloaded', undefined, undefined, { headers: { 'retry-after': '1' } });
    this.byCompany.set(company, companyUsed + bytes);
    this.used += bytes;
    this.gauge?.set(this.used);
  }

  private give(company: string, bytes: number): void {
    if (bytes === 0) return;
    const left = (this.byCompany.get(company) ?? 0) - bytes;
    if (left > 0) this.byCompany.set(company, left);
    else this.byCompany.delete(company);
    this.used = Math.max(0, this.used - bytes);
    this.gauge?.set(this.used);
  }
}

export interface BodyHold {
  /** Takes `bytes` for the call, or throws 429 request_bodies_overloaded. */
  take(bytes: number): void;
  /** Gives back part of what the call took (a gRPC message its handler received). */
  give(bytes: number): void;
  /** Gives back everything the call took. */
  release(): void;
}
