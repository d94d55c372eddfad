/**
 * Plot bodies for a page whose positions are already chosen. Pages are
 * chosen on narrow rows (time and tags, no plot_str) so that only the plots
 * actually returned are transferred; this reads them back with one window
 * per series, all windows in a few requests.
 */
import { NO_ITER_TIME_TEXT } from '../../../shared/events/storage-layout.js';
import type { QueryDeps } from '../../query-deps.js';
import { decodeEvents, iterTime, runStatements, scopeCondition, seriesCondition, where } from './plot-image-influx.js';
import type { Namespace } from './entity-access.js';
import type { StoredEvent } from './stored-events.js';

export interface PlotPositionRef {
  readonly entity: string;
  readonly metric: string;
  readonly variant: string;
  /** null: the no-iteration plot of the series. */
  readonly iter: number | null;
}

export const plotRefKey = (p: PlotPositionRef): string => JSON.stringify([p.entity, p.metric, p.variant, p.iter]);

/** The stored plot events at these positions, by plotRefKey (positions without a stored plot are missing). */
export async function fetchPlotEvents(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  positions: readonly PlotPositionRef[],
): Promise<Map<string, StoredEvent>> {
  const windows = new Map<string, { ref: PlotPositionRef; lo: number | null; hi: number | null }>();
  for (const p of positions) {
    const key = JSON.stringify([p.entity, p.metric, p.variant]);
    const w = windows.get(key);
    if (w === undefined) windows.set(key, { ref: p, lo: p.iter, hi: p.iter });
    else {
      w.lo = minIter(w.lo, p.iter);
      w.hi = maxIter(w.hi, p.iter);
    }
  }
  const statements = [...windows.values()].map(({ ref, lo, hi }) => {
    const from = lo === null ? NO_ITER_TIME_TEXT : iterTime(lo);
    const to = hi === null ? NO_ITER_TIME_TEXT : iterTime(hi);
    return `SELECT * FROM "plot" WHERE ${where(scopeCondition(company, namespace, [ref.entity]), seriesCondition(ref.metric, ref.variant), `time >= ${from}`, `time <= ${to}`)}`;
  });
  const wanted = new Set(positions.map(plotRefKey));
  const found = new Map<string, StoredEvent>();
  for (const result of await runStatements(deps.influx, statements)) {
    for (const { event, iter } of decodeEvents(result.series ?? [], 'plot')) {
      const key = plotRefKey({
        entity: event.task as string,
        metric: event.metric as string,
        variant: event.variant as string,
        iter: iter ?? null,
      });
      if (wanted.has(key)) found.set(key, event);
    }
  }
  return found;
}

// null (no iteration) ranks below every iteration.
function minIter(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.min(a, b);
}

function maxIter(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
