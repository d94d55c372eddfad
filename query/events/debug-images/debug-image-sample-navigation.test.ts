import { describe, expect, it } from 'vitest';
import {
  debugImageSample,
  newDebugImageSampleState,
  nextDebugImageSample,
  refreshDebugImageSampleRanges,
  type DebugImageSampleState,
  type ImageEvent,
} from './debug-image-sample-navigation.js';

describe('debug image sample example (§8.2)', () => {
  const events: ImageEvent[] = Array.from({ length: 10 }, (_, iter) => ({
    iter,
    metric: 'm',
    variant: 'v',
    url: `img_${iter % 4}.png`,
  }));
  const state = newDebugImageSampleState(
    { task: 't', metric: 'm', variant: 'v', navigate_current_metric: true },
    events,
  );

  it('ranges 6..9 and the latest event is iteration 9', () => {
    const answer = debugImageSample(state, { metric: 'm', variant: 'v' }, events);
    expect(answer).toMatchObject({ moved: true, min_iteration: 6, max_iteration: 9, event: { iter: 9 } });
    expect(answer.state).toMatchObject({ metric: 'm', variant: 'v', iteration: 9 });
  });

  it('asking for iteration 8 returns the event of iteration 8', () => {
    expect(debugImageSample(state, { metric: 'm', variant: 'v' }, events, 8).event?.iter).toBe(8);
  });

  it('finds nothing below min_iteration, but answers the range', () => {
    expect(debugImageSample(state, { metric: 'm', variant: 'v' }, events, 5)).toMatchObject({
      moved: false,
      event: null,
      min_iteration: 6,
      max_iteration: 9,
    });
  });

  it('answers null bounds for a variant without a range', () => {
    expect(debugImageSample(state, { metric: 'm', variant: 'x' }, events)).toMatchObject({
      event: null,
      min_iteration: null,
      max_iteration: null,
    });
  });

  it('prefers the greatest URL within an iteration and ignores events without URL', () => {
    const twoKeys: ImageEvent[] = [
      { iter: 1, metric: 'm', variant: 'v', url: 'a' },
      { iter: 1, metric: 'm', variant: 'v', url: 'b' },
      { iter: 2, metric: 'm', variant: 'v' },
    ];
    const s = newDebugImageSampleState(
      { task: 't', metric: 'm', variant: 'v', navigate_current_metric: true },
      twoKeys,
    );
    expect(debugImageSample(s, { metric: 'm', variant: 'v' }, twoKeys).event?.url).toBe('b');
  });
});

describe('debug image sample navigation example (§8.3)', () => {
  const events: ImageEvent[] = [0, 1].flatMap((iter) =>
    ['V1', 'V2'].map((variant) => ({ iter, metric: 'm', variant, url: `${variant}_${iter}` })),
  );

  it('walks (1,V1) (1,V2) nothing, then earlier (1,V1) (0,V2) (0,V1) nothing', () => {
    let state: DebugImageSampleState = newDebugImageSampleState(
      { task: 't', metric: 'm', variant: 'V1', navigate_current_metric: true },
      events,
    );
    const first = debugImageSample(state, { metric: 'm', variant: 'V1' }, events);
    state = first.state;
    const at = (answer: { event: ImageEvent | null }) =>
      answer.event ? `${answer.event.iter},${answer.event.variant}` : 'nothing';
    expect(at(first)).toBe('1,V1');
    const next = (navigateEarlier: boolean, nextIteration = false) => {
      const answer = nextDebugImageSample(state, events, navigateEarlier, nextIteration);
      if (answer.moved) state = answer.state;
      return at(answer);
    };
    expect(next(false)).toBe('1,V2');
    expect(next(false)).toBe('nothing');
    expect(next(true)).toBe('1,V1');
    expect(next(true)).toBe('0,V2');
    expect(next(true)).toBe('0,V1');
    expect(next(true)).toBe('nothing');
    expect(state).toMatchObject({ variant: 'V1', iteration: 0 });
  });

  it('jumps iterations with next_iteration, taking the greatest variant when earlier', () => {
    const state = newDebugImageSampleState(
      { task: 't', metric: 'm', variant: 'V1', navigate_current_metric: true },
      events,
    );
    const s1 = debugImageSample(state, { metric: 'm', variant: 'V1' }, events).state;
    const answer = nextDebugImageSample(s1, events, true, true);
    expect(answer.event).toMatchObject({ iter: 0, variant: 'V2' });
    expect([answer.min_iteration, answer.max_iteration]).toEqual([0, 1]);
    expect(nextDebugImageSample(answer.state, events, false, true).event).toMatchObject({ iter: 1, variant: 'V1' });
  });

  it('skips overwritten images (below a variant min_iteration)', () => {
    const recycled: ImageEvent[] = [
      { iter: 0, metric: 'm', variant: 'V1', url: 'same' },
      { iter: 1, metric: 'm', variant: 'V1', url: 'same' },
      { iter: 0, metric: 'm', variant: 'V2', url: 'x0' },
      { iter: 1, metric: 'm', variant: 'V2', url: 'x1' },
    ];
    let state = newDebugImageSampleState(
      { task: 't', metric: 'm', variant: 'V2', navigate_current_metric: false },
      recycled,
    );
    state = debugImageSample(state, { metric: 'm', variant: 'V2' }, recycled, 0).state;
    // V1 at 0 is hidden (its URL was reused at 1): nothing before (0, V2)
    expect(nextDebugImageSample(state, recycled, true, false).event).toBeNull();
  });

  it('moves across metrics unless navigate_current_metric', () => {
    const twoMetrics: ImageEvent[] = [
      { iter: 1, metric: 'a', variant: 'v', url: 'a1' },
      { iter: 1, metric: 'b', variant: 'v', url: 'b1' },
    ];
    const across = newDebugImageSampleState(
      { task: 't', metric: 'a', variant: 'v', navigate_current_metric: false },
      twoMetrics,
    );
    const s = debugImageSample(across, { metric: 'a', variant: 'v' }, twoMetrics).state;
    expect(nextDebugImageSample(s, twoMetrics, false, false).event).toMatchObject({ metric: 'b' });
    const within = newDebugImageSampleState(
      { task: 't', metric: 'a', variant: 'v', navigate_current_metric: true },
      twoMetrics,
    );
    const w = debugImageSample(within, { metric: 'a', variant: 'v' }, twoMetrics).state;
    expect(nextDebugImageSample(w, twoMetrics, false, false).event).toBeNull();
  });
});

describe('refreshDebugImageSampleRanges', () => {
  it('recomputes the ranges and keeps the position', () => {
    const state: DebugImageSampleState = {
      task: 't',
      navigate_current_metric: false,
      metric: 'm',
      variant: 'v',
      iteration: 3,
      ranges: [],
    };
    const events: ImageEvent[] = [{ iter: 3, metric: 'n', variant: 'w', url: 'u' }];
    expect(refreshDebugImageSampleRanges(state, events)).toEqual({
      ...state,
      ranges: [{ metric: 'n', variant: 'w', min_iteration: 3, max_iteration: 3 }],
    });
  });
});
