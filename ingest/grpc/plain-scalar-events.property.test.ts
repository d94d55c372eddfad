// The fused path of plain scalar events (ingest/events/plain-scalar-event.ts) is an optimisation only:
// whatever a StreamEvents call's chunks and the limits, the stream acknowledges, refuses, ends,
// publishes (byte for byte, under the same ids), holds budget and reports metrics exactly as the
// general path (the chunk reader's raw events, normalizeEvent, EventEncoder, the summary builder) does.
import { create, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { limits, ROOMY } from '../http/plain-scalar-test-harness.js';
import { EventChunkSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { runStream, streamChunks } from './plain-scalar-event-test-harness.js';

async function expectSame(chunks: Uint8Array[], options = ROOMY): Promise<number> {
  const taken = { events: 0 };
  const fused = await runStream(chunks, options, true, taken);
  const general = await runStream(chunks, options, false);
  expect(fused).toEqual(general);
  return taken.events;
}

describe('plain scalar events: the fused path against the general one', () => {
  it('an SDK chunk goes through the fused path, with the same messages and ack', async () => {
    const values = [142.85714285714286, 1, 0.5, -3, 1e-5, 100.5, -0, 0.000001, 1.5e300, 0.1 + 0.2];
    const events = Array.from({ length: 300 }, (_, i) => ({
      type: 'training_stats_scalar',
      task: `p-t${i % 3}`,
      iter: BigInt(i >> 2),
      metric: `metric${i % 2}`,
      variant: `variant${i % 5}`,
      value: values[i % values.length]!,
      timestamp: { case: 'timestampMs' as const, value: 1718000000000 + i },
      ...(i % 7 === 0 ? {} : { modelEvent: false, allowLocked: false }),
    }));
    const chunk = toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: 5n, events }));
    const taken = await expectSame([chunk, chunk]);
    expect(taken).toBeGreaterThan(550);
  });

  it('any chunks and limits: the same stream', async () => {
    let fusedEvents = 0;
    await fc.assert(
      fc.asyncProperty(streamChunks, limits, async (chunks, options) => {
        const taken = { events: 0 };
        const fused = await runStream(chunks, options, true, taken);
        const general = await runStream(chunks, options, false);
        expect(fused).toEqual(general);
        fusedEvents += taken.events;
      }),
      { numRuns: 1000 },
    );
    // The property must have been exercised on events the fused path took, not only on fallbacks.
    expect(fusedEvents).toBeGreaterThan(3000);
  }, 300_000);
});
