import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/errors/error-catalogue.js';
import { assertSampleStateMatches, requireNextSampleState } from '../navigation/sample-state.js';
import {
  newPlotSampleState,
  nextPlotSample,
  plotSample,
  refreshPlotSampleRanges,
  type PlotSampleEvent,
  type PlotSampleState,
} from './plot-sample-navigation.js';

const events: PlotSampleEvent[] = [0, 1].flatMap((iter) => [
  { iter, metric: 'M1', variant: 'v1' },
  { iter, metric: 'M1', variant: 'v2' },
  { iter, metric: 'M2', variant: 'v3' },
  { iter, metric: 'M2', variant: 'v4' },
]);

const where = (answer: { moved: boolean; events: PlotSampleEvent[] }) =>
  answer.moved
    ? `${answer.events[0]!.iter},${answer.events[0]!.metric}:${answer.events.map((e) => e.variant).join('')}`
    : 'nothing';

describe('plot sample navigation example (§7.5)', () => {
  it('walks (1,M1) (1,M2) (1,M1) (0,M2), then nothing, then (1,M1)', () => {
    let state = newPlotSampleState({ task: 't', metric: 'M1', navigate_current_metric: false }, events);
    const first = plotSample(state, 'M1', events);
    expect(where(first)).toBe('1,M1:v1v2');
    expect([first.min_iteration, first.max_iteration]).toEqual([0, 1]);
    state = first.state;
    const next = (navigateEarlier: boolean, nextIteration = false) => {
      const answer = nextPlotSample(state, events, navigateEarlier, nextIteration);
      if (answer.moved) state = answer.state;
      return where(answer);
    };
    expect(next(false)).toBe('1,M2:v3v4');
    expect(next(true)).toBe('1,M1:v1v2');
    expect(next(true)).toBe('0,M2:v3v4');
    expect(next(true, true)).toBe('nothing');
    expect(next(false, true)).toBe('1,M1:v1v2');
  });

  it('answers null bounds when nothing is found and keeps the state', () => {
    const state: PlotSampleState = {
      task: 't',
      navigate_current_metric: false,
      metric: 'M1',
      iteration: 0,
      ranges: [],
    };
    const answer = nextPlotSample(state, events, true, false);
    expect(answer).toEqual({ state, moved: false, events: [], min_iteration: null, max_iteration: null });
  });

  it('stays within the metric when navigate_current_metric', () => {
    let state = newPlotSampleState({ task: 't', metric: 'M2', navigate_current_metric: true }, events);
    expect(state.ranges.map((r) => r.metric)).toEqual(['M2']);
    state = plotSample(state, 'M2', events).state;
    const answer = nextPlotSample(state, events, true, false);
    expect(where(answer)).toBe('0,M2:v3v4');
    expect(where(nextPlotSample(answer.state, events, true, false))).toBe('nothing');
  });
});

describe('plotSample (§7.4)', () => {
  const state = newPlotSampleState({ task: 't', metric: 'M1', navigate_current_metric: false }, events);

  it('takes the greatest iteration at or below the requested one', () => {
    expect(where(plotSample(state, 'M1', events, 0))).toBe('0,M1:v1v2');
    expect(where(plotSample(state, 'M1', events, 7))).toBe('1,M1:v1v2');
  });

  it('answers the range but no events below the first iteration', () => {
    const answer = plotSample(state, 'M1', events, -1);
    expect(answer).toMatchObject({ moved: false, events: [], min_iteration: 0, max_iteration: 1 });
  });

  it('answers null bounds for a metric without a range', () => {
    expect(plotSample(state, 'M9', events)).toMatchObject({
      moved: false,
      events: [],
      min_iteration: null,
      max_iteration: null,
    });
  });

  it('returns at most 100 variants, ascending', () => {
    const many = Array.from({ length: 150 }, (_, i) => ({
      iter: 0,
      metric: 'X',
      variant: `v${String(149 - i).padStart(3, '0')}`,
    }));
    const answer = plotSample(
      newPlotSampleState({ task: 't', metric: 'X', navigate_current_metric: true }, many),
      'X',
      many,
    );
    expect(answer.events).toHaveLength(100);
    expect(answer.events[0]!.variant).toBe('v000');
  });
});

describe('sample state checks', () => {
  const key = { task: 't', metric: 'M1', navigate_current_metric: true };

  it('refuses a state of another task, mode or (when within a metric) metric with 400/1104', () => {
    for (const request of [
      { ...key, task: 'u' },
      { ...key, navigate_current_metric: false },
      { ...key, metric: 'M2' },
    ]) {
      let error: unknown;
      try {
        assertSampleStateMatches(key, request, 'sid');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).entry.subcode).toBe(1104);
      expect((error as ApiError).message).toBe(
        'Invalid scroll id (Task and metric stored in the state do not match the passed ones): scroll_id=sid',
      );
    }
    expect(() =>
      assertSampleStateMatches(
        { ...key, navigate_current_metric: false },
        { ...key, navigate_current_metric: false, metric: 'M2' },
        'sid',
      ),
    ).not.toThrow();
  });

  it('requires a live state of the task for next_*_sample', () => {
    expect(() => requireNextSampleState(undefined, 't', undefined)).toThrow('Invalid scroll id: scroll_id=None');
    expect(() => requireNextSampleState({ task: 'u' }, 't', 'sid')).toThrow('Invalid scroll id: scroll_id=sid');
    expect(requireNextSampleState({ task: 't' }, 't', 'sid')).toEqual({ task: 't' });
  });
});

describe('refreshPlotSampleRanges', () => {
  it('recomputes the ranges and keeps the position', () => {
    const state: PlotSampleState = { task: 't', navigate_current_metric: true, metric: 'M1', iteration: 1, ranges: [] };
    expect(refreshPlotSampleRanges(state, events)).toEqual({
      ...state,
      ranges: [{ metric: 'M1', min_iteration: 0, max_iteration: 1 }],
    });
  });
});
