/**
 * `npm run bench:writer-path -- [rounds]`: the writer process's own work on
 * bench:ingest's SDK-shaped scalar load, in process and without stores: the
 * messages ingest publishes for it (made before the clock starts, by the
 * in-process ingest path), read into store batches as a partition worker
 * does (`WriteBatch.add`: record scanning, line protocol, summaries and logs
 * sorted out), a batch taken every WRITER_BATCH_EVENTS events. CPU µs an
 * event of this process, so that a change to the writer's reading can be
 * measured apart from sockets, stores and the machine's other load
 * (docs/performance.md). Take the benchmark lock on a shared machine.
 *
 * Last line: `writer_path cpu_us=<x> bytes_per_event=<y> minor_gcs_per_1m=<z>`
 * (young-generation collections per million events).
 */
import type { Delivery } from '../../ingest/writer/jetstream-delivery.js';
import { WriteBatch } from '../../ingest/writer/write-batch.js';
import { countMinorCollections } from './gc-counter.js';
import { ingestChunk, inProcessIngest } from './in-process-ingest.js';
import { grpcChunk } from './scalar-load.js';

const ROUNDS = Number(process.argv[2] ?? 200);
const BATCH = 10_000;
const REQUESTS = 8;
/** The writer's default WRITER_BATCH_EVENTS. */
const BATCH_EVENTS = 10_000;

async function publishedMessages(): Promise<Buffer[]> {
  const payloads: Buffer[] = [];
  const ingest = inProcessIngest((payload) => payloads.push(Buffer.from(payload)));
  // Both of ingest's ways to a scalar write the same bytes (docs/ingest.md): the chunks are the cheaper to make.
  for (let n = 0; n < REQUESTS; n++) {
    const bytes = Buffer.from(grpcChunk('p', n, n * BATCH, BATCH, `p-mk${n}`));
    const result = await ingestChunk(ingest, bytes, String(n));
    if (result.added !== BATCH + 1) throw new Error(`request ${n}: ${JSON.stringify(result)}`);
  }
  return payloads;
}

async function main(): Promise<void> {
  const payloads = await publishedMessages();
  const batch = new WriteBatch();
  let streamSeq = 1;
  const round = (): number => {
    let events = 0;
    for (const data of payloads) {
      batch.add({ msg: { data }, streamSeq: streamSeq++, possiblyRedelivered: false } as unknown as Delivery);
      if (batch.events >= BATCH_EVENTS) {
        events += batch.events;
        batch.reset();
      }
    }
    events += batch.events;
    batch.reset();
    return events;
  };
  // Warm-up: the hot functions optimised before the clock starts.
  for (let i = 0; i < 30; i++) round();
  let events = 0;
  const collections = countMinorCollections();
  const before = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) events += round();
  const used = process.cpuUsage(before);
  const minor = await collections.stop();
  if (events !== ROUNDS * REQUESTS * (BATCH + 1))
    throw new Error(`read ${events} events, expected ${ROUNDS * REQUESTS * (BATCH + 1)}`);
  const bytes = payloads.reduce((sum, p) => sum + p.byteLength, 0);
  process.stdout.write(
    `writer_path cpu_us=${((used.user + used.system) / events).toFixed(3)} bytes_per_event=${(bytes / (REQUESTS * (BATCH + 1))).toFixed(1)} minor_gcs_per_1m=${Math.round((minor * 1e6) / events)}\n`,
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
