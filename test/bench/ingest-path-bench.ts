/**
 * `npm run bench:ingest-path -- [http|grpc] [requests]`: the
 * ingest process's own work on bench:ingest's SDK-shaped scalar load, in
 * process and without stores: add_batch NDJSON bodies (fed in 64 KiB
 * chunks, as sockets deliver them) or StreamEvents chunks, through the
 * session to packed message payloads; entity checks answer at once and
 * publishing only reads the payloads. CPU µs an event of this process, so
 * that a change to parsing, checking or encoding can be measured apart from
 * sockets and the machine's other load (docs/performance.md). Take the
 * benchmark lock on a shared machine.
 *
 * Last line: `ingest_path mode=<m> cpu_us=<x> bytes_per_event=<y> minor_gcs_per_1m=<z>`
 * (young-generation collections per million events).
 */
import { Readable } from 'node:stream';
import type { IngestResult } from '../../ingest/events/ingest-port.js';
import { addBatchOperation } from '../../ingest/http/add-batch-operation.js';
import type { CallContext } from '../../shared/protocol/operation.js';
import { countMinorCollections } from './gc-counter.js';
import { BENCH_IDENTITY, ingestChunk, inProcessIngest } from './in-process-ingest.js';
import { grpcChunk, ndjsonBody } from './scalar-load.js';
import { readBodyLimited } from '../../shared/http/body-reader.js';

const mode = process.argv[2] === 'grpc' ? 'grpc' : 'http';
const REQUESTS = Number(process.argv[3] ?? 100);
const BATCH = 10_000;
const BODIES = 8;
const SOCKET_CHUNK = 64 * 1024;

/** Payload bytes published while the clock runs: what nats-server and both nats.js ends move. */
let publishedBytes = 0;
const ingest = inProcessIngest((payload) => (publishedBytes += payload.byteLength));
const addBatch = addBatchOperation({ ingest, maxLineBytes: 16 * 1024 * 1024 });
const bodies = Array.from({ length: BODIES }, (_, n) => ndjsonBody('p', n * BATCH, BATCH, `p-mk${n}`));
const chunks = Array.from({ length: BODIES }, (_, n) => Buffer.from(grpcChunk('p', n, n * BATCH, BATCH, `p-mk${n}`)));

function socketChunks(body: Buffer): Readable {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += SOCKET_CHUNK) parts.push(body.subarray(at, at + SOCKET_CHUNK));
  return Readable.from(parts, { objectMode: false });
}

async function request(i: number): Promise<IngestResult> {
  if (mode === 'grpc') return ingestChunk(ingest, chunks[i % BODIES]!, String(i));
  const context = {
    identity: BENCH_IDENTITY,
    callId: 'bench',
    headers: {},
    signal: new AbortController().signal,
    receivedAt: Date.now(),
  } as unknown as CallContext;
  return (await addBatch.handle(
    socketChunks(bodies[i % BODIES]!),
    {
      contentType: 'application/json-lines',
      search: '',
      readWhole: (body) => readBodyLimited(body, Infinity, () => new Error('unreachable')),
    },
    context,
  )) as IngestResult;
}

async function main(): Promise<void> {
  // Warm-up: the hot functions optimised before the clock starts.
  for (let i = 0; i < 20; i++) await request(i);
  publishedBytes = 0;
  const collections = countMinorCollections();
  const before = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const result = await request(i);
    if (result.added !== BATCH + 1) throw new Error(`request ${i}: ${JSON.stringify(result)}`);
  }
  const used = process.cpuUsage(before);
  const minor = await collections.stop();
  const perEvent = (used.user + used.system) / (REQUESTS * (BATCH + 1));
  const bytesPerEvent = publishedBytes / (REQUESTS * (BATCH + 1));
  process.stdout.write(
    `ingest_path mode=${mode} cpu_us=${perEvent.toFixed(3)} bytes_per_event=${bytesPerEvent.toFixed(1)} minor_gcs_per_1m=${Math.round((minor * 1e6) / (REQUESTS * (BATCH + 1)))}\n`,
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
