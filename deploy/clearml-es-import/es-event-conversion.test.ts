import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { convertDocument, documentsOf, indexParts } from './es-event-conversion.js';

describe('ClearML Elasticsearch documents', () => {
  it('read type and company from the index name (apiserver/bll/event/event_common.py get_index_name)', () => {
    expect(indexParts('events-training_stats_scalar-d1bd92a3b039400cbafc60a7a5b1e52b')).toEqual({
      type: 'training_stats_scalar',
      company: 'd1bd92a3b039400cbafc60a7a5b1e52b',
    });
    expect(indexParts('events-log-')).toEqual({ type: 'log', company: '' });
    expect(indexParts('worker_stats_x')).toBeUndefined();
    expect(indexParts(5)).toBeUndefined();
  });

  it('become add_batch events without ClearML bookkeeping, locked tasks allowed', () => {
    const converted = convertDocument({
      _index: 'events-training_stats_vector-c1',
      _id: 'x',
      _source: {
        '@timestamp': '2024-01-01T00:00:00Z',
        company_id: 'c1',
        task: 't1',
        type: 'training_stats_vector',
        iter: 3,
        metric: 'w',
        variant: 'l1',
        value: [1, 2],
        timestamp: 1700000000000,
        worker: 'gpu',
        model_event: false,
      },
    });
    expect(converted).toEqual({
      company: 'c1',
      event: {
        type: 'training_stats_vector',
        task: 't1',
        iter: 3,
        metric: 'w',
        variant: 'l1',
        value: [1, 2],
        timestamp: 1700000000000,
        worker: 'gpu',
        model_event: false,
        allow_locked: true,
      },
    });
  });

  it('decompress plots ClearML stored as plot_data (base64 of zlib)', () => {
    const figure = JSON.stringify({ data: [{ x: [1], y: [2] }] });
    const plot_data = deflateSync(Buffer.from(figure)).toString('base64');
    const converted = convertDocument({
      _index: 'events-plot-c1',
      _source: { task: 't1', type: 'plot', iter: 0, metric: 'm', variant: 'v', plot_data, plot_len: figure.length },
    });
    expect(converted).toMatchObject({ event: { plot_str: figure } });
    expect('event' in converted && 'plot_data' in converted.event).toBe(false);
    expect(convertDocument({ _index: 'events-plot-c1', _source: { task: 't1', plot_data: 'not zlib' } })).toEqual({
      skip: 'plot_data that does not decompress',
    });
  });

  it('skip what is not an event document', () => {
    expect(convertDocument(null)).toEqual({ skip: 'not a document' });
    expect(convertDocument({ _index: 'queue_metrics_c1', _source: {} })).toEqual({ skip: 'not an events index' });
    expect(convertDocument({ _index: 'events-log-c1' })).toEqual({ skip: 'no _source' });
    expect(convertDocument({ _index: 'events-log-c1', _source: { msg: 'x' } })).toEqual({ skip: 'no task' });
  });

  it('come one per elasticdump line, or as the hits of a saved search page', () => {
    const hit = { _index: 'events-log-c1', _source: { task: 't' } };
    expect(documentsOf(hit)).toEqual([hit]);
    expect(documentsOf({ _scroll_id: 's', hits: { total: { value: 2 }, hits: [hit, hit] } })).toEqual([hit, hit]);
    expect(documentsOf([hit])).toEqual([]);
    expect(documentsOf('x')).toEqual([]);
  });
});
