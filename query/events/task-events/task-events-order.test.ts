import { describe, expect, it } from 'vitest';
import {
  compareTaskEvents,
  pageOfTaskEvents,
  type OrderedTaskEvent,
  type TaskEventsOrder,
  type TaskEventsPage,
  type TaskEventsPosition,
} from './task-events-order.js';

interface Ev extends OrderedTaskEvent {
  id: string;
}

let seq = 0;
const ev = (iter: number | undefined, timestamp: number, id = `${iter ?? '-'}@${timestamp}`): Ev => ({
  iter,
  timestamp,
  seq: seq++,
  id,
});

// Two stores (say scalars and logs), each sorted on its own.
const scalars = [ev(0, 10), ev(0, 11), ev(1, 5), ev(2, 1), ev(2, 2), ev(2, 3)];
const logs = [ev(undefined, 1, 'log1'), ev(undefined, 2, 'log2')];
const other = [ev(1, 6), ev(3, 0)];
const sources = (order: TaskEventsOrder) => [scalars, logs, other].map((s) => [...s].sort(compareTaskEvents(order)));

function readAll(order: TaskEventsOrder, batchSize: number): string[][] {
  const pages: string[][] = [];
  let position: TaskEventsPosition = 'start';
  for (let guard = 0; guard < 20; guard++) {
    const page: TaskEventsPage<Ev> = pageOfTaskEvents(sources(order), position, batchSize, order);
    pages.push(page.events.map((e) => e.id));
    if (page.events.length === 0) {
      expect(page.position).toBe('end');
      return pages;
    }
    position = page.position;
  }
  throw new Error('did not terminate');
}

describe('pageOfTaskEvents', () => {
  it('orders by iter ascending, then timestamp, with the no-iteration group last', () => {
    expect(readAll('asc', 100)).toEqual([
      ['0@10', '0@11', '1@5', '1@6', '2@1', '2@2', '2@3', '3@0', 'log1', 'log2'],
      [],
    ]);
  });

  it('orders by iter descending with the no-iteration group still last, timestamps descending', () => {
    expect(readAll('desc', 100)).toEqual([
      ['3@0', '2@3', '2@2', '2@1', '1@6', '1@5', '0@11', '0@10', 'log2', 'log1'],
      [],
    ]);
  });

  it('never splits an iteration group, so pages can exceed batch_size', () => {
    expect(readAll('asc', 3)).toEqual([
      ['0@10', '0@11', '1@5', '1@6'],
      ['2@1', '2@2', '2@3'],
      ['3@0', 'log1', 'log2'],
      [],
    ]);
  });

  it('treats iteration 0 as a position like any other', () => {
    const page = pageOfTaskEvents(sources('asc'), 0, 1, 'asc');
    expect(page.events.map((e) => e.id)).toEqual(['1@5', '1@6']);
    expect(page.position).toBe(1);
  });

  it('stays exhausted after the no-iteration group or an empty page', () => {
    const last = pageOfTaskEvents(sources('asc'), 3, 10, 'asc');
    expect(last).toEqual({ events: [logs[0], logs[1]], position: 'end' });
    expect(pageOfTaskEvents(sources('asc'), 'end', 10, 'asc')).toEqual({ events: [], position: 'end' });
    expect(pageOfTaskEvents([[ev(1, 1)]], 1, 10, 'asc')).toEqual({ events: [], position: 'end' });
  });

  it('breaks timestamp ties by arrival order in the direction of the page', () => {
    const a = ev(5, 7, 'first');
    const b = ev(5, 7, 'second');
    expect(pageOfTaskEvents([[a], [b]], 'start', 10, 'asc').events.map((e) => e.id)).toEqual(['first', 'second']);
    expect(pageOfTaskEvents([[b], [a]], 'start', 10, 'desc').events.map((e) => e.id)).toEqual(['second', 'first']);
  });

  it('works from bounded sources holding a batch plus the tail of its last group', () => {
    // each source trimmed to its first 2 events after the position, plus the rest of the last one's group
    const trimmed = [[scalars[0]!, scalars[1]!], [...logs], [other[0]!, other[1]!]];
    expect(pageOfTaskEvents(trimmed, 'start', 2, 'asc').events.map((e) => e.id)).toEqual(['0@10', '0@11']);
  });
});
