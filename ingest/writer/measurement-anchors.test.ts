import { describe, expect, it } from 'vitest';
import { ANCHOR_COMPANY, encodeTagValue } from '../../shared/events/storage-layout.js';
import { anchorLines, shardStarts } from './measurement-anchors.js';
import fc from 'fast-check';
import type { InfluxSeries } from '../../shared/stores/influx-store.js';

const ns = (ms: number) => BigInt(ms) * 1_000_000n;
const COLUMNS = [
  'id',
  'database',
  'retention_policy',
  'shard_group',
  'start_time',
  'end_time',
  'expiry_time',
  'owners',
];

/** SHOW SHARDS as InfluxDB 1.6 answers it: one series per database (copied from a run on this machine). */
const SHOW_SHARDS = [
  {
    statement_id: 0,
    series: [
      { name: '_internal', columns: COLUMNS, values: [[1, '_internal', 'monitor', 1, '2026-11-29T00:00:00Z']] },
      {
        name: 'sh',
        columns: COLUMNS,
        values: [
          [7002, 'sh', 'autogen', 7002, '1677-09-20T00:00:00Z', '1677-09-27T00:00:00Z', '1677-09-27T00:00:00Z', ''],
          [7003, 'sh', 'autogen', 7003, '1969-12-29T00:00:00Z', '1970-01-05T00:00:00Z', '1970-01-05T00:00:00Z', ''],
          [7005, 'sh', 'autogen', 7005, '2023-11-13T00:00:00Z', '2023-11-20T00:00:00Z', '2023-11-20T00:00:00Z', ''],
          [7004, 'sh', 'autogen', 7004, '2262-04-07T00:00:00Z', '2262-04-11T23:47:16Z', '2262-04-11T23:47:16Z', ''],
        ],
      },
      { name: 'empty', columns: COLUMNS } as InfluxSeries,
    ],
  },
];

describe('shardStarts', () => {
  it("answers the database's shard starts in order, the first clamped to InfluxDB's earliest time", () => {
    expect(shardStarts(SHOW_SHARDS, 'sh')).toEqual([
      -9223372036854775806n,
      ns(Date.UTC(1969, 11, 29)),
      ns(Date.UTC(2023, 10, 13)),
      ns(Date.UTC(2262, 3, 7)),
    ]);
  });

  it('answers nothing for a database without shards or not listed', () => {
    expect(shardStarts(SHOW_SHARDS, 'empty')).toEqual([]);
    expect(shardStarts(SHOW_SHARDS, 'other')).toEqual([]);
  });
});

describe('anchorLines', () => {
  it('writes one point per measurement and shard, with a field of the type the measurement has', () => {
    expect(anchorLines(['scalar', 'plot_body'], [-5n, 7n])).toBe(
      `scalar,c=${ANCHOR_COMPANY} ts=0i -5\nscalar,c=${ANCHOR_COMPANY} ts=0i 7\n` +
        `plot_body,c=${ANCHOR_COMPANY} p="" -5\nplot_body,c=${ANCHOR_COMPANY} p="" 7\n`,
    );
  });

  it("is under a company tag no company's stored value equals", () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (company) => encodeTagValue(company) !== ANCHOR_COMPANY));
    expect(encodeTagValue(ANCHOR_COMPANY)).not.toBe(ANCHOR_COMPANY);
  });
});
