import { describe, expect, it } from 'vitest';
import { taskMetricSelections } from '../common/metric-variants.js';
import { lastInvalidIteration } from '../debug-images/debug-image-validity.js';
import {
  newWindowTaskState,
  pickWindowIterations,
  stepWindowTask,
  variantsPerMetricCap,
  windowBounds,
  type WindowEvent,
  type WindowKind,
  type WindowTaskState,
} from './plot-window-navigation.js';
import { windowStateAction } from './navigation-state.js';

interface Ev extends WindowEvent {
  id: string;
}

const plot = (iter: number, metric = 'roc', variant = 'class1', timestamp = iter): Ev => ({
  id: `${metric}/${variant}@${iter}:${timestamp}`,
  iter,
  metric,
  variant,
  timestamp,
});

function run(state: WindowTaskState, events: Ev[], kind: WindowKind, iters: number, navigateEarlier = true) {
  const step = stepWindowTask(state, events, { kind, iters, navigateEarlier });
  return { iters: step.iterations.map((i) => i.iter), step };
}

function freshState(
  events: Ev[],
  request = [{ task: 't1' }] as Parameters<typeof taskMetricSelections>[0],
  lii?: Map<string, number | undefined>,
): WindowTaskState {
  const selection = taskMetricSelections(request)[0]!;
  const present = new Map(events.map((e) => [`${e.metric}\0${e.variant}`, { metric: e.metric, variant: e.variant }]));
  return newWindowTaskState(
    selection,
    [...present.values()].map((p) => ({ ...p, last_invalid_iteration: lii?.get(p.variant) })),
  );
}

describe('events.plots navigation example (§7.3)', () => {
  const events = Array.from({ length: 10 }, (_, i) => plot(i));

  it('pages 9..5, 4..0, nothing, later 9..5, earlier 4..0, refresh 9..5', () => {
    let state = freshState(events);
    const page = (navigateEarlier = true) => {
      const result = run(state, events, 'plots', 5, navigateEarlier);
      state = result.step.state;
      return result.iters;
    };
    expect(page()).toEqual([9, 8, 7, 6, 5]);
    expect(page()).toEqual([4, 3, 2, 1, 0]);
    expect(page()).toEqual([]);
    expect([state.last_max_iter, state.last_min_iter]).toEqual([4, 0]);
    expect(page(false)).toEqual([9, 8, 7, 6, 5]);
    expect(page()).toEqual([4, 3, 2, 1, 0]);
    expect(windowStateAction(true, true)).toBe('rebuild');
    state = freshState(events);
    expect(page()).toEqual([9, 8, 7, 6, 5]);
  });

  it('forces earlier while last_max_iter is none', () => {
    const state = freshState(events);
    expect(run(state, events, 'plots', 3, false).iters).toEqual([9, 8, 7]);
    expect(windowBounds(state, false)).toEqual({ earlier: true });
  });

  it('returns no iterations for a task without metrics', () => {
    const empty = freshState([]);
    expect(run(empty, events, 'plots', 5).iters).toEqual([]);
  });
});

describe('stepWindowTask', () => {
  it('takes the latest event per variant and orders metrics and variants by name', () => {
    const events = [plot(1, 'b', 'y', 10), plot(1, 'b', 'x', 10), plot(1, 'a', 'z', 10), plot(1, 'b', 'x', 20)];
    const state = freshState(events);
    const { step } = run(state, events, 'plots', 1);
    expect(step.iterations[0]!.events.map((e) => e.id)).toEqual(['a/z@1:10', 'b/x@1:20', 'b/y@1:10']);
  });

  it('keeps metrics the state was built with: a new metric needs a refresh, a new variant does not', () => {
    const state = freshState([plot(0, 'roc', 'c1')]);
    const events = [plot(0, 'roc', 'c1'), plot(0, 'roc', 'c2'), plot(0, 'new', 'v')];
    expect(run(state, events, 'plots', 1).step.iterations[0]!.events.map((e) => e.variant)).toEqual(['c1', 'c2']);
  });

  it('with named variants, chooses iterations among those variants only', () => {
    const events = [plot(5, 'roc', 'other'), plot(3, 'roc', 'wanted')];
    const state = freshState(events, [{ task: 't1', metric: 'roc', variants: ['wanted'] }]);
    expect(run(state, events, 'plots', 1).iters).toEqual([3]);
  });

  it('caps variants per iteration and metric, first by name', () => {
    expect(variantsPerMetricCap(1, 1)).toBe(8000);
    expect(variantsPerMetricCap(3, 3)).toBe(888);
    expect(variantsPerMetricCap(9000, 1)).toBe(1);
  });

  it('picks distinct iterations within bounds', () => {
    expect(pickWindowIterations([1, 5, 5, 3, 9], { earlier: true, below: 9 }, 2)).toEqual([5, 3]);
    expect(pickWindowIterations([1, 5, 5, 3, 9], { earlier: false, above: 1 }, 2)).toEqual([3, 5]);
  });
});

describe('events.debug_images example (§8.1)', () => {
  const image = (iter: number, variant: string, urls: number): Ev => ({
    ...plot(iter, 'samples', variant),
    url: `${variant}_${iter % urls}.png`,
  });
  const events = Array.from({ length: 10 }, (_, i) => [image(i, 'A', 7), image(i, 'B', 4)]).flat();
  const lii = new Map([
    ['A', lastInvalidIteration(events.filter((e) => e.variant === 'A') as Array<Ev & { url: string }>)],
    ['B', lastInvalidIteration(events.filter((e) => e.variant === 'B') as Array<Ev & { url: string }>)],
  ]);

  it('shows A at 3..9 and B at 6..9 over three pages of 5 iterations', () => {
    let state = freshState(events, undefined, lii);
    const page = () => {
      const { step } = run(state, events, 'debug_images', 5);
      state = step.state;
      return step.iterations.map((i) => `${i.iter}:${i.events.map((e) => e.variant).join('')}`);
    };
    expect(page()).toEqual(['9:AB', '8:AB', '7:AB', '6:AB', '5:A']);
    expect(page()).toEqual(['4:A', '3:A']);
    expect(page()).toEqual([]);
    expect([state.last_max_iter, state.last_min_iter]).toEqual([4, 3]);
  });

  it('represents a variant by its greatest URL and ignores events without one', () => {
    const twoKeys = [
      { ...image(1, 'A', 7), url: 'a.png', id: 'a' },
      { ...image(1, 'A', 7), url: 'b.png', id: 'b' },
      { ...plot(2, 'samples', 'A'), id: 'no-url' },
    ];
    const state = freshState(twoKeys);
    const { step } = run(state, twoKeys, 'debug_images', 5);
    expect(step.iterations.map((i) => [i.iter, i.events.map((e) => e.id)])).toEqual([[1, ['b']]]);
  });

  it('shows variants unknown to the state without the check, unless variants were named', () => {
    const known = [image(0, 'A', 1), image(1, 'A', 1)]; // same URL twice: A invalid up to 0
    const later = [...known, image(0, 'C', 1)];
    const state = freshState(known, undefined, new Map([['A', 0]]));
    expect(
      run(state, later, 'debug_images', 5).step.iterations.map((i) => [i.iter, i.events.map((e) => e.variant)]),
    ).toEqual([
      [1, ['A']],
      [0, ['C']],
    ]);
    const named = freshState(known, [{ task: 't1', metric: 'samples', variants: ['A', 'C'] }], new Map([['A', 0]]));
    expect(run(named, later, 'debug_images', 5).iters).toEqual([1]);
  });
});

describe('windowStateAction', () => {
  it('creates silently when no live state is found', () => {
    expect(windowStateAction(false, false)).toBe('create');
    expect(windowStateAction(false, true)).toBe('create');
    expect(windowStateAction(true, false)).toBe('continue');
  });
});
