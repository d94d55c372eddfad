import { describe, expect, it } from 'vitest';
import { LogEntry } from './log-stream-range.js';

describe('LogEntry', () => {
  it('reads the millisecond and sequence of a stream id and keeps the stored bytes', () => {
    const entry = new LogEntry(Buffer.from('1718000000123-42'), Buffer.from('{"msg":"ünï"}'));
    expect([entry.ms, entry.seq, entry.id]).toEqual([1718000000123, 42, '1718000000123-42']);
    expect(JSON.parse(entry.json)).toEqual({ msg: 'ünï' });
  });

  it('reads ids of millisecond 0 (events timestamped before the epoch are stored at 0)', () => {
    const entry = new LogEntry(Buffer.from('0-7'), Buffer.from('{}'));
    expect([entry.ms, entry.seq]).toEqual([0, 7]);
  });
});
