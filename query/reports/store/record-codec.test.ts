import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeEntityHash } from './record-codec.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe('decodeEntityHash', () => {
  it('turns hash strings into stored-record values and hides internal fields', () => {
    const record = decodeEntityHash(
      {
        id: 't1',
        company: 'c',
        name: 'n',
        created: '1714557630123',
        last_iteration: '7',
        tags: '["b","a"]',
        ready: '0',
        summary_seq: '65536',
        status: 'publishing',
        deleting_status: 'created',
      },
      { '["loss","train"]': '{"metric":"loss","variant":"train","value":1,"iter":7,"timestamp":5,"count":1}' },
    );
    expect(record).toEqual({
      id: 't1',
      company: 'c',
      name: 'n',
      created: 1714557630123,
      last_iteration: 7,
      tags: ['b', 'a'],
      ready: false,
      status: 'created',
      last_metrics: { [md5('loss')]: { [md5('train')]: { metric: 'loss', variant: 'train', value: 1, count: 1 } } },
    });
  });

  it('answers undefined for a missing hash', () => {
    expect(decodeEntityHash({})).toBeUndefined();
  });
});
