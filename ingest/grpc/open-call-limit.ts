/**
 * Bounds the gRPC calls a process keeps open at once. grpc-js keeps every
 * stream a client opens until the client ends it, and a unary call waits for
 * its message without end: one connection held 20,000 health calls that never
 * sent a message, 5.7 KB of heap each, without credentials, and nothing
 * bounded how many. A call is counted from its start (its headers) to its
 * end; beyond the limit it ends at once with RESOURCE_EXHAUSTED 429 and
 * Retry-After. Each company may hold a quarter of the limit, and so may the
 * callers without valid credentials together (health, reflection, refused
 * tokens), so that neither a company's streams nor anyone's floods leave the
 * others without calls. docs/grpc.md, "Calls held open".
 */
import { Gauge, type Registry } from 'prom-client';
import { apiError } from '../../shared/errors/error-catalogue.js';

/** Ends one call's place; calling it again does nothing. */
export type CallRelease = () => void;

/** The party of callers without valid credentials, which no company id can name. */
const WITHOUT_CREDENTIALS = Symbol('without credentials');

export class OpenCallLimit {
  private count = 0;
  private readonly byParty = new Map<string | symbol, number>();
  private readonly gauge: Gauge | undefined;
  readonly perParty: number;

  constructor(
    readonly limit: number,
    registry?: Registry,
  ) {
    this.perParty = Math.max(1, Math.floor(limit / 4));
    this.gauge = registry
      ? new Gauge({
          name: 'clearml_grpc_calls_open',
          help: 'gRPC calls open now, of every service (GRPC_MAX_OPEN_CALLS bounds them)',
          registers: [registry],
        })
      : undefined;
  }

  /** A place for one call of `company` (undefined: a caller without valid credentials), or the 429 to end it with. */
  open(company: string | undefined): CallRelease {
    const party = company ?? WITHOUT_CREDENTIALS;
    const held = this.byParty.get(party) ?? 0;
    if (held >= this.perParty || this.count >= this.limit) throw this.refusal(company);
    this.byParty.set(party, held + 1);
    this.count++;
    this.gauge?.set(this.count);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.byParty.get(party) ?? 1) - 1;
      if (left > 0) this.byParty.set(party, left);
      else this.byParty.delete(party);
      this.count--;
      this.gauge?.set(this.count);
    };
  }

  get inUse(): number {
    return this.count;
  }

  private refusal(company: string | undefined) {
    const whose = company === undefined ? 'callers without valid credentials' : 'a company';
    return apiError('too_many_calls', `at most ${this.perParty} for ${whose}, ${this.limit} in all`, undefined, {
      headers: { 'retry-after': '1' },
    });
  }
}
