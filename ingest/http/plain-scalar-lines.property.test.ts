// The fused path of plain scalar lines (ingest/events/plain-scalar-line.ts) is an optimisation only:
// whatever the body, its chunking and the request's limits, events.add_batch answers, refuses,
// publishes (byte for byte, under the same ids), holds budget and reports metrics exactly as the
// general path (JSON.parse, normalizeEvent, EventEncoder, the summary builder) does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cut, limits, ndjsonBody, ROOMY, runAddBatch } from './plain-scalar-test-harness.js';

const SDK_LINE = (i: number, value: string) =>
  `{"timestamp": ${1718000000000 + i}, "type": "training_stats_scalar", "task": "p-t${i % 3}", "iter": ${i >> 2}, "metric": "metric${i % 2}", "variant": "variant${i % 5}", "value": ${value}, "model_event": false, "allow_locked": false}`;

async function expectSame(chunks: Buffer[], options = ROOMY): Promise<number> {
  const taken = { lines: 0 };
  const fused = await runAddBatch(chunks, options, true, taken);
  const general = await runAddBatch(chunks, options, false);
  expect(fused).toEqual(general);
  return taken.lines;
}

describe('plain scalar lines: the fused path against the general one', () => {
  it('an SDK batch goes through the fused path, with the same messages', async () => {
    const values = ['25.714285714285715', '1.0', '0.5', '-3', '1e-05', '100.50', '-0.0', '0.000001', '1.5e+300'];
    const body = Buffer.from(Array.from({ length: 300 }, (_, i) => SDK_LINE(i, values[i % values.length]!)).join('\n'));
    const lines = await expectSame([body]);
    expect(lines).toBeGreaterThan(250);
  });

  it('any body, chunking and limits: the same request', async () => {
    let fusedLines = 0;
    await fc.assert(
      fc.asyncProperty(ndjsonBody, fc.array(fc.nat(), { maxLength: 4 }), limits, async (body, offsets, options) => {
        const taken = { lines: 0 };
        const chunks = cut(body, offsets);
        const fused = await runAddBatch(chunks, options, true, taken);
        const general = await runAddBatch(chunks, options, false);
        expect(fused).toEqual(general);
        fusedLines += taken.lines;
      }),
      { numRuns: 1000 },
    );
    // The property must have been exercised on lines the fused path took, not only on fallbacks.
    expect(fusedLines).toBeGreaterThan(3000);
  }, 300_000);

  it('roomy limits, SDK-like bodies in socket-sized chunks: the same request', async () => {
    await fc.assert(
      fc.asyncProperty(ndjsonBody, fc.integer({ min: 1, max: 4096 }), async (body, size) => {
        const chunks: Buffer[] = [];
        for (let at = 0; at < body.length; at += size) chunks.push(body.subarray(at, at + size));
        await expectSame(chunks);
      }),
      { numRuns: 300 },
    );
  }, 300_000);
});
