// docs/ingest.md "Bounded resources": under memory pressure a request's records go to its spill
// file instead of growing in memory; the messages published are the same bytes, packed the same
// way (a re-sent request must get the same message ids, docs/ingest.md "Re-sent requests").
import { describe, expect, it } from 'vitest';
import { HeldMemory } from '../publish/held-memory.js';
import { BufferPool } from './buffer-pool.js';
import { RecordSink, type SinkMessage } from './record-sink.js';
import { SpillFile } from './spill-file.js';

const TARGET = 64 * 1024;
const LIMIT = 256 * 1024;

function records(n: number, seed: number): string[] {
  return Array.from({ length: n }, (_, i) => `S${'x'.repeat((i * 7919 + seed) % 700)}é${i}\n`);
}

async function bytesOf(messages: SinkMessage[]): Promise<Array<{ payload: string; records: number }>> {
  return Promise.all(
    messages.map(async (m) => ({ payload: Buffer.from(await m.payload()).toString('utf8'), records: m.records })),
  );
}

describe('RecordSink under memory pressure', () => {
  it('packs and encodes exactly as in memory when every segment is spilled', async () => {
    const input = [...records(3000, 1), 'L'.repeat(100_000), ...records(500, 2)];
    const plain = new RecordSink(TARGET, LIMIT);
    input.forEach((r) => plain.append(r));
    const memory = new HeldMemory(0);
    const spill = new SpillFile();
    const spilled = new RecordSink(TARGET, LIMIT, { memory, spill: () => spill });
    input.forEach((r) => spilled.append(r));
    expect(spill.bytes).toBeGreaterThan(0);
    expect(await bytesOf(spilled.messages())).toEqual(await bytesOf(plain.messages()));
    spilled.release(true);
    await spill.close();
    expect(memory.inUse).toBe(0);
  });

  it('holds at most one small segment in memory per sink once the process memory is taken', () => {
    const memory = new HeldMemory(0);
    const spill = new SpillFile();
    const sink = new RecordSink(1 << 20, 1 << 20, { memory, spill: () => spill });
    let held = 0;
    for (const r of records(20_000, 3)) held += sink.append(r)!;
    expect(memory.inUse).toBeLessThanOrEqual(64 * 1024);
    // the request's count still covers every byte it holds, on disk too
    expect(held).toBeGreaterThanOrEqual(spill.bytes);
    sink.release(true);
    void spill.close();
  });

  it('keeps records in memory while the process has room', () => {
    const memory = new HeldMemory(8 << 20);
    let opened = 0;
    const sink = new RecordSink(1 << 20, 1 << 20, { memory, spill: () => (opened++, new SpillFile()) });
    records(5000, 4).forEach((r) => sink.append(r));
    expect(opened).toBe(0);
    expect(memory.inUse).toBeGreaterThan(0);
    sink.release(true);
    expect(memory.inUse).toBe(0);
  });

  it('gives its buffers to the pool only when nothing can read them any more', async () => {
    const buffers = new BufferPool(16 << 20);
    const room = { memory: new HeldMemory(16 << 20), buffers, spill: () => new SpillFile() };
    const first = new RecordSink(TARGET, LIMIT, room);
    records(400, 5).forEach((r) => first.append(r));
    const published = await bytesOf(first.messages());
    first.release(false);
    const keptAfterFailure = buffers.retained;
    const second = new RecordSink(TARGET, LIMIT, room);
    records(400, 5).forEach((r) => second.append(r));
    second.release(true);
    expect(buffers.retained).toBeGreaterThan(keptAfterFailure);
    // A sink built from used buffers writes the same bytes.
    const third = new RecordSink(TARGET, LIMIT, room);
    records(400, 5).forEach((r) => third.append(r));
    expect(await bytesOf(third.messages())).toEqual(published);
  });
});

describe('RecordSink with E records (wire version 2)', () => {
  const HEADER = 'E20:,c=co,e=task\n,w="x"';
  const j = (i: number) => `J${String(i).length + 6}:s,m ${i} 1`;

  it('starts every message holding J records with their E record, once, and counts it as a record', async () => {
    const sink = new RecordSink(TARGET, LIMIT);
    const input: Array<[string, string | undefined]> = [];
    for (let i = 0; i < 20_000; i++) input.push(i % 1000 === 999 ? [`I5:i ${i % 10} 1`, undefined] : [j(i), HEADER]);
    input.forEach(([record, header]) => sink.append(record, header));
    const messages = await bytesOf(sink.messages());
    expect(messages.length).toBeGreaterThan(2);
    for (const { payload, records } of messages) {
      expect(payload.startsWith(HEADER)).toBe(true);
      expect(payload.split(HEADER)).toHaveLength(2);
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(TARGET);
      // The E record, then one record per J or I record appended.
      expect(records).toBe(payload.match(/[IJ]\d+:/g)!.length + 1);
    }
    expect(messages.map((m) => m.payload.slice(HEADER.length)).join('')).toBe(input.map(([r]) => r).join(''));
  });

  it('writes no E record into a message of records without one, and one before a J record that follows them', async () => {
    const sink = new RecordSink(TARGET, LIMIT);
    sink.append('L3:log');
    sink.append(j(1), HEADER);
    sink.append(j(2), HEADER);
    const large = `J${100_000}:${'y'.repeat(100_000)}`;
    sink.append(large, HEADER);
    sink.append('L3:log');
    sink.append(j(3), HEADER);
    const messages = await bytesOf(sink.messages());
    // A record too large to share a message gets one of its own, after its E record.
    expect(messages).toEqual([
      { payload: `L3:log${HEADER}${j(1)}${j(2)}`, records: 4 },
      { payload: `${HEADER}${large}`, records: 2 },
      { payload: `L3:log${HEADER}${j(3)}`, records: 3 },
    ]);
    const logsOnly = new RecordSink(TARGET, LIMIT);
    logsOnly.append('L3:log');
    expect(await bytesOf(logsOnly.messages())).toEqual([{ payload: 'L3:log', records: 1 }]);
  });

  it('packs E and J records exactly as in memory when every segment is spilled', async () => {
    const input = Array.from({ length: 5000 }, (_, i) => {
      const body = `s,m ${'x'.repeat((i * 7919) % 700)} ${i}`;
      return `J${body.length}:${body}`;
    });
    // Messages of 1 MiB: a buffer past a spill segment's size is what memory pressure writes out.
    const plain = new RecordSink(1 << 20, LIMIT);
    input.forEach((r) => plain.append(r, HEADER));
    const memory = new HeldMemory(0);
    const spill = new SpillFile();
    const spilled = new RecordSink(1 << 20, LIMIT, { memory, spill: () => spill });
    input.forEach((r) => spilled.append(r, HEADER));
    expect(spill.bytes).toBeGreaterThan(0);
    expect(await bytesOf(spilled.messages())).toEqual(await bytesOf(plain.messages()));
    spilled.release(true);
    await spill.close();
  });

  it('goes on after a spilled record that is large by its worst case only, packing as in memory', async () => {
    // 200 characters: 600 bytes at worst, over the target, so the record gets a message of its own, spilled
    // when memory is taken; 200 bytes in fact, so a short record after it fits the same message, which once left
    // it an empty buffer that doubling never grew (makeRoom looped for ever).
    const input = ['L'.repeat(200), 'S'.repeat(60), 'T'.repeat(150)];
    const plain = new RecordSink(427, LIMIT);
    input.forEach((r) => plain.append(r));
    const memory = new HeldMemory(0);
    const spill = new SpillFile();
    const spilled = new RecordSink(427, LIMIT, { memory, spill: () => spill });
    input.forEach((r) => spilled.append(r));
    expect(spill.bytes).toBeGreaterThan(0);
    expect(await bytesOf(spilled.messages())).toEqual(await bytesOf(plain.messages()));
    spilled.release(true);
    await spill.close();
  });
});
