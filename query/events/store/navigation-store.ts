/**
 * Server-side navigation states of events.plots, events.debug_images and
 * the sample viewers (events.md §7.3-§8.3, §10), in Redis under the
 * company's navigation key (shared/stores/redis-keys.ts) with a 3600 s idle
 * expiry. events.clear_scroll deletes that same key.
 *
 * The company is part of the key, so another company's id simply is not
 * found. Each stored state records its kind: an id of one kind given to an
 * operation of another kind counts as unknown (ClearML shares one namespace
 * between plots and debug_images; the contract does not require it, §13 #36).
 */
import { randomBytes } from 'node:crypto';
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import { NAVIGATION_STATE_TTL_SECONDS } from '../navigation/navigation-state.js';
import { assertSampleStateMatches, type SampleStateKey } from '../navigation/sample-state.js';
import type { Namespace } from './entity-access.js';

export type NavigationKind = 'plots' | 'debug_images' | 'plot_sample' | 'debug_image_sample';

export interface StoredNavigation<S> {
  readonly kind: NavigationKind;
  readonly namespace: Namespace;
  readonly state: S;
}

const STATE_ID = /^[0-9a-f]{32}$/;

export function navigationKey(prefix: string, company: string, id: string): string {
  return redisKeys(prefix).navigation(company, id);
}

export class NavigationStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlSeconds = NAVIGATION_STATE_TTL_SECONDS,
  ) {}

  newId(): string {
    return randomBytes(16).toString('hex');
  }

  /** The live state of this company and kind named by `id`; undefined for anything else (malformed, expired, other kind). */
  async load<S>(
    company: string,
    id: string | null | undefined,
    kind: NavigationKind,
  ): Promise<StoredNavigation<S> | undefined> {
    // Anything that is not one of our ids cannot name a state: no Redis round trip.
    if (typeof id !== 'string' || !STATE_ID.test(id)) return undefined;
    const text = await this.redis.get(navigationKey(this.prefix, company, id));
    if (text === null) return undefined;
    try {
      const stored = JSON.parse(text) as StoredNavigation<S>;
      return stored.kind === kind ? stored : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The state a get_plot_sample / get_debug_image_sample call goes on with:
   * the stored one named by `scrollId` (its ranges read again on `refresh`),
   * else `start` with its ranges read; a stored state of another task,
   * metric or namespace is the contract's mismatch (400/1104). Answers the
   * id to save the state under.
   */
  async openSample<S extends SampleStateKey & { ranges: unknown }>(
    company: string,
    namespace: Namespace,
    scrollId: string | undefined,
    kind: NavigationKind,
    options: { refresh: boolean; start: Omit<S, 'ranges'>; rangesOf(state: Omit<S, 'ranges'>): Promise<S['ranges']> },
  ): Promise<{ id: string; state: S }> {
    const loaded = await this.load<S>(company, scrollId, kind);
    if (loaded === undefined) {
      return { id: this.newId(), state: { ...options.start, ranges: await options.rangesOf(options.start) } as S };
    }
    // A state of the other namespace belongs to another entity: the same mismatch.
    assertSampleStateMatches(
      loaded.namespace === namespace ? loaded.state : { ...loaded.state, task: '\u0000' },
      options.start,
      scrollId!,
    );
    const state = options.refresh ? { ...loaded.state, ranges: await options.rangesOf(loaded.state) } : loaded.state;
    return { id: scrollId!, state };
  }

  /** Saves the state, renewing its idle lifetime. */
  async save<S>(company: string, id: string, stored: StoredNavigation<S>): Promise<void> {
    await this.redis.set(navigationKey(this.prefix, company, id), JSON.stringify(stored), {
      expiration: { type: 'EX', value: this.ttlSeconds },
    });
  }
}
