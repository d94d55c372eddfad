/**
 * Order and paging of events.get_task_events (events.md §5): by iteration
 * in the requested direction, events without an iteration as one final
 * group in both directions, then timestamp and arrival order in the same
 * direction. A page never splits an iteration group.
 */
import { indexAfter, mergedPage } from '../common/sorted-pages.js';

export interface OrderedTaskEvent {
  /** Absent: the event belongs to the final no-iteration group. */
  readonly iter?: number | null;
  readonly timestamp: number;
  /** Arrival order (ingest sequence), unique per event. */
  readonly seq: number;
}

export type TaskEventsOrder = 'asc' | 'desc';

/**
 * Where the next page starts: before everything, strictly after the group
 * of an iteration, or exhausted (after the no-iteration group, or after an
 * empty page). 0 is an iteration like any other.
 */
export type TaskEventsPosition = 'start' | 'end' | number;

/** One store's events of the selection, sorted by `compareTaskEvents(order)`. */
export type SortedEventSource<E extends OrderedTaskEvent> = readonly E[];

export const TASK_EVENTS_MAX_BATCH = 10_000;

const hasIter = (e: OrderedTaskEvent): e is OrderedTaskEvent & { iter: number } =>
  e.iter !== undefined && e.iter !== null;

/** The ordering of §5 for one direction. */
export function compareTaskEvents(order: TaskEventsOrder): (a: OrderedTaskEvent, b: OrderedTaskEvent) => number {
  const dir = order === 'asc' ? 1 : -1;
  return (a, b) => compareGroups(a, b, dir) || dir * (a.timestamp - b.timestamp) || dir * (a.seq - b.seq);
}

function compareGroups(a: OrderedTaskEvent, b: OrderedTaskEvent, dir: number): number {
  if (hasIter(a)) return hasIter(b) ? dir * Math.sign(a.iter - b.iter) : -1;
  return hasIter(b) ? 1 : 0;
}

function sameGroup(a: OrderedTaskEvent, b: OrderedTaskEvent): boolean {
  return hasIter(a) ? hasIter(b) && a.iter === b.iter : !hasIter(b);
}

/** Where an event's group lies relative to a position: <= 0 not after it, > 0 after it. */
function relativeToPosition(position: TaskEventsPosition, dir: number): (e: OrderedTaskEvent) => number {
  if (position === 'start') return () => 1;
  if (position === 'end') return () => -1;
  return (e) => (hasIter(e) ? dir * Math.sign(e.iter - position) : 1);
}

export interface TaskEventsPage<E> {
  events: E[];
  /** The position to store in the cursor. */
  position: TaskEventsPosition;
}

/**
 * The next page: the first `batchSize` events after `position` over all
 * sources, plus the rest of the last event's iteration group. A source may
 * hold events at or before the position (they are skipped); see
 * `mergedPage` for how much of each source must be present.
 */
export function pageOfTaskEvents<E extends OrderedTaskEvent>(
  sources: readonly SortedEventSource<E>[],
  position: TaskEventsPosition,
  batchSize: number,
  order: TaskEventsOrder,
): TaskEventsPage<E> {
  if (position === 'end') return { events: [], position };
  const dir = order === 'asc' ? 1 : -1;
  const after = relativeToPosition(position, dir);
  const events = mergedPage(sources, {
    compare: compareTaskEvents(order),
    sameGroup,
    batchSize,
    start: sources.map((source) => indexAfter(source, after)),
  });
  const last = events[events.length - 1];
  if (last === undefined) return { events, position: 'end' };
  return { events, position: hasIter(last) ? last.iter : 'end' };
}
