/**
 * Scroll states of get_all_ex / get_task_data (reports.md §4.9): `{id,
 * position}` in Redis, shared by every query process, expiring 600 s after
 * their last use. A state belongs to the company that made it; any other
 * caller finds it unknown (a new scroll), like an expired one.
 */
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { newId } from './store/project-store.js';
import type { ReportKeys } from './store/report-keys.js';

export const SCROLL_TTL_S = 600;

export interface ScrollState {
  id: string;
  position: number;
}

export class ScrollStates {
  constructor(
    private readonly redis: () => RedisClient,
    private readonly keys: ReportKeys,
  ) {}

  /** The live state named `id`, or a new one at position 0. */
  async open(company: string, id: string | undefined): Promise<ScrollState> {
    if (id !== undefined) {
      const stored = await this.redis().get(this.keys.scroll(company, id));
      if (stored !== null) {
        const state = parse(stored);
        if (state !== undefined && state.c === company) return { id, position: state.p };
      }
    }
    return { id: newId(), position: 0 };
  }

  async save(company: string, state: ScrollState): Promise<void> {
    await this.redis().set(this.keys.scroll(company, state.id), JSON.stringify({ c: company, p: state.position }), {
      expiration: { type: 'EX', value: SCROLL_TTL_S },
    });
  }
}

function parse(text: string): { c: string; p: number } | undefined {
  try {
    const value = JSON.parse(text) as { c?: unknown; p?: unknown };
    return typeof value.c === 'string' && typeof value.p === 'number' ? { c: value.c, p: value.p } : undefined;
  } catch {
    return undefined;
  }
}
