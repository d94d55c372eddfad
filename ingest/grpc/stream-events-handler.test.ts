import { create } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiError, apiErrorWithMessage } from '../../shared/errors/error-catalogue.js';
import { fullCollection } from '../publish/dead-buffer-collector.js';
import { eventsIngestDefinition } from './events-ingest-definition.js';
import { EventChunkSchema, type ChunkAck } from './gen/clearml/events/v1/events_ingest_pb.js';
import {
  IDENTITY,
  meta,
  scalar,
  startTestServer,
  until,
  type EventInit,
  type TestServer,
} from './grpc-ingest-test-harness.js';

let t: TestServer;
const MiB = 1024 * 1024;

beforeEach(async () => {
  t = await startTestServer();
});

afterEach(() => t.stop());

interface StreamOutcome {
  acks: ChunkAck[];
  error?: ServiceError;
}

/** Sends the chunks (ids 100, 101, ...) and half-closes; resolves when the server ends the call. */
function streamChunks(chunks: EventInit[][], metadata = meta()): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const acks: ChunkAck[] = [];
    const call = t.client.StreamEvents(metadata);
    call.on('data', (ack: ChunkAck) => acks.push(ack));
    call.on('end', () => resolve({ acks }));
    call.on('error', (error: ServiceError) => resolve({ acks, error }));
    chunks.forEach((events, i) => call.write(create(EventChunkSchema, { chunkId: BigInt(100 + i), events })));
    call.end();
  });
}

const summary = (ack: ChunkAck) => [
  Number(ack.chunkId),
  ack.added,
  ack.error?.code ?? null,
  ack.error?.subcode ?? null,
];

describe('StreamEvents', () => {
  it('commits chunks one after another and acknowledges them in order', async () => {
    const commits: string[] = [];
    t.ingest.onCommit = async (s) => {
      const task = String(s.events[0]?.task);
      commits.push(`start ${task}`);
      await new Promise((resolve) => setTimeout(resolve, task === 'slow' ? 60 : 1));
      commits.push(`end ${task}`);
      return { added: s.events.length, errors: 0, errors_info: {} };
    };
    const { acks, error } = await streamChunks([[scalar('slow'), scalar('slow')], [scalar('fast')], [scalar('last')]]);
    expect(error).toBeUndefined();
    expect(acks.map(summary)).toEqual([
      [100, 2, null, null],
      [101, 1, null, null],
      [102, 1, null, null],
    ]);
    expect(commits).toEqual(['start slow', 'end slow', 'start fast', 'end fast', 'start last', 'end last']);
    expect(t.ingest.sessions.map((s) => s.context.identity)).toEqual([IDENTITY, IDENTITY, IDENTITY]);
  });

  it('passes counts and errors_info of each chunk on', async () => {
    t.ingest.onCommit = async () => ({ added: 1, errors: 1, errors_info: { 'Invalid event type x': 1 } });
    const { acks } = await streamChunks([[scalar('a'), { type: 'x', task: 'a' }]]);
    expect(acks[0]).toMatchObject({ added: 1, errors: 1, errorsInfo: { 'Invalid event type x': 1 } });
    expect(acks[0]?.error).toBeUndefined();
  });

  it('acknowledges a refused chunk with its error and goes on', async () => {
    t.ingest.onCommit = async (s) => {
      if (s.events.length === 0) throw apiError('batch_empty');
      if (s.events[0]?.task === 'bad')
        throw apiErrorWithMessage('events_not_added', 'Events not added: Invalid task id bad=1');
      return { added: s.events.length, errors: 0, errors_info: {} };
    };
    const { acks, error } = await streamChunks([[scalar('bad')], [], [scalar('good')]]);
    expect(error).toBeUndefined();
    expect(acks.map(summary)).toEqual([
      [100, 0, 400, 131],
      [101, 0, 400, 17],
      [102, 1, null, null],
    ]);
    expect(acks[0]?.error?.message).toBe('Events not added: Invalid task id bad=1');
  });

  it('ends the stream with UNAUTHENTICATED when the credentials are bad', async () => {
    const { acks, error } = await streamChunks([[scalar('a')]], meta({ authorization: 'Bearer nope' }));
    expect(acks).toEqual([]);
    expect([error?.code, error?.details, error?.metadata.get('clearml-result-code')[0]]).toEqual([
      status.UNAUTHENTICATED,
      'Invalid token',
      '401',
    ]);
    expect(t.ingest.sessions).toHaveLength(0);
  });

  it('ends the stream with INTERNAL after the acks already sent when a chunk fails unexpectedly', async () => {
    t.ingest.onCommit = async (s) => {
      if (s.events[0]?.task === 'boom') throw new TypeError('undefined is not a function');
      return { added: 1, errors: 0, errors_info: {} };
    };
    const { acks, error } = await streamChunks([[scalar('a')], [scalar('boom')], [scalar('c')]]);
    expect(acks.map(summary)).toEqual([[100, 1, null, null]]);
    expect([error?.code, error?.details]).toEqual([status.INTERNAL, 'Internal server error']);
    // The chunk after the failure may have been checked while it committed, but is never committed.
    expect(t.ingest.sessions.map((s) => [s.events[0]?.task, s.committed])).toEqual(
      [
        ['a', true],
        ['boom', true],
        ['c', false],
      ].slice(0, t.ingest.sessions.length),
    );
    expect(t.ingest.sessions.slice(2).every((s) => s.discarded)).toBe(true);
    expect(t.logged.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('ends the stream with 400/0 INVALID_ARGUMENT on a message that does not parse', async () => {
    const RawClient = makeClientConstructor(
      { StreamEvents: { ...eventsIngestDefinition.StreamEvents, requestSerialize: (bytes: Buffer) => bytes } },
      'clearml.events.v1.EventsIngest',
    );
    const raw = new RawClient(`127.0.0.1:${t.port}`, credentials.createInsecure());
    const call = raw.StreamEvents(meta());
    const error = await new Promise<ServiceError>((resolve) => {
      call.on('error', resolve);
      call.write(Buffer.from([0x12, 0x7f])); // events: length 127, no bytes
    });
    raw.close();
    expect([
      error.code,
      error.metadata.get('clearml-result-code')[0],
      error.metadata.get('clearml-result-subcode')[0],
    ]).toEqual([status.INVALID_ARGUMENT, '400', '0']);
    expect(t.ingest.sessions).toHaveLength(0);
  });

  it('aborts the chunk in progress and commits no other once the client cancels', async () => {
    let release: () => void = () => undefined;
    t.ingest.onCommit = (s) =>
      new Promise((resolve) => (release = () => resolve({ added: s.events.length, errors: 0, errors_info: {} })));
    const call = t.client.StreamEvents(meta());
    call.on('error', () => undefined);
    call.write(create(EventChunkSchema, { chunkId: 1n, events: [scalar('a')] }));
    call.write(create(EventChunkSchema, { chunkId: 2n, events: [scalar('b')] }));
    await until(() => t.ingest.sessions[0]?.committed === true, 'first commit');
    call.cancel();
    await until(() => t.ingest.sessions[0]?.context.signal?.aborted === true, 'abort');
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Chunk 2 was checked while chunk 1 committed; it is dropped, not committed.
    expect(t.ingest.sessions.map((s) => s.committed)).toEqual([true, false]);
    expect(t.ingest.sessions[1]?.discarded).toBe(true);
  });

  it('acknowledges each chunk without waiting for the next one (a client may wait for every ack)', async () => {
    t.ingest.onCommit = async (s) => ({ added: s.events.length, errors: 0, errors_info: {} });
    const call = t.client.StreamEvents(meta());
    const acks: ChunkAck[] = [];
    let arrived: () => void = () => undefined;
    call.on('data', (ack: ChunkAck) => {
      acks.push(ack);
      arrived();
    });
    const ended = new Promise<void>((resolve, reject) => {
      call.on('end', resolve);
      call.on('error', reject);
    });
    for (let n = 1; n <= 3; n++) {
      const acked = new Promise<void>((resolve) => (arrived = resolve));
      call.write(create(EventChunkSchema, { chunkId: BigInt(n), events: [scalar(`t${n}`)] }));
      await acked;
    }
    call.end();
    await ended;
    expect(acks.map((a) => Number(a.chunkId))).toEqual([1, 2, 3]);
  });

  it('checks the next chunk while the previous one commits, and commits it only after', async () => {
    const steps: string[] = [];
    let release: () => void = () => undefined;
    t.ingest.onCommit = (s) => {
      const task = String(s.events[0]?.task);
      steps.push(`commit ${task} (${t.ingest.sessions.length} sessions begun)`);
      return task === 'first'
        ? new Promise((resolve) => (release = () => resolve({ added: 1, errors: 0, errors_info: {} })))
        : Promise.resolve({ added: 1, errors: 0, errors_info: {} });
    };
    const outcome = streamChunks([[scalar('first')], [scalar('second')]]);
    await until(() => t.ingest.sessions.length === 2, 'second chunk checked during the first commit');
    expect(t.ingest.sessions[1]?.committed).toBe(false);
    release();
    const { acks, error } = await outcome;
    expect(error).toBeUndefined();
    expect(acks.map(summary)).toEqual([
      [100, 1, null, null],
      [101, 1, null, null],
    ]);
    expect(steps).toEqual(['commit first (1 sessions begun)', 'commit second (2 sessions begun)']);
  });
});

describe('StreamEvents memory', () => {
  it('keeps nothing of a chunk once it is acknowledged: 80 chunks of 512 KiB leave no buffer behind', async () => {
    const collect = fullCollection()!;
    const streamed = async (chunks: number) => {
      const outcome = await streamChunks(
        Array.from({ length: chunks }, (_, n) => [{ type: 'log', task: `t${n}`, msg: 'x'.repeat(512 * 1024) }]),
      );
      expect(outcome.error).toBeUndefined();
      expect(outcome.acks).toHaveLength(chunks);
      t.ingest.sessions.length = 0;
    };
    // A first stream warms up what the transport keeps for good (its buffers, compiled code).
    await streamed(2);
    collect();
    const before = process.memoryUsage().arrayBuffers;
    await streamed(80);
    // 80 x 512 KiB went through. Both ends release their last buffers in later turns (the call's status,
    // HTTP/2 frames): held memory must fall to far less than one stream's worth within a second.
    let held = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 20 && held >= 8 * 1024 * 1024; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      collect();
      held = process.memoryUsage().arrayBuffers - before;
    }
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('StreamEvents read-ahead', () => {
  it('reading one chunk ahead, streams chunks whose commits each wait, acknowledged whole and in order', async () => {
    // The limit itself: read-ahead.test.ts (a stream taking 18 of 40 chunks of 1 MiB while the first commit
    // waited took 3 with it, docs/grpc.md). Here: the stream still flows through it.
    const held: Array<() => void> = [];
    t.ingest.onCommit = (s) =>
      new Promise((resolve) => held.push(() => resolve({ added: s.events.length, errors: 0, errors_info: {} })));
    const chunks = 24;
    const call = t.client.StreamEvents(meta());
    const acks: ChunkAck[] = [];
    call.on('data', (ack: ChunkAck) => acks.push(ack));
    const ended = new Promise<void>((resolve, reject) => {
      call.on('end', resolve);
      call.on('error', reject);
    });
    for (let n = 0; n < chunks; n++)
      call.write(
        create(EventChunkSchema, {
          chunkId: BigInt(n),
          events: [{ type: 'log', task: `t${n}`, msg: 'x'.repeat(MiB) }],
        }),
      );
    call.end();
    await until(() => held.length === 1 && t.ingest.sessions.length === 2, 'one chunk committing, the next checked');
    expect(t.ingest.sessions[1]?.committed).toBe(false);
    held.shift()!();
    for (let released = 1; released < chunks; released++) {
      await until(() => held.length > 0, 'the next commit');
      held.shift()!();
    }
    await ended;
    expect(acks.map((a) => Number(a.chunkId))).toEqual(Array.from({ length: chunks }, (_, n) => n));
  });
});

describe('stop', () => {
  it('cancels streams still open after the grace period', async () => {
    t.ingest.onCommit = () => new Promise(() => undefined);
    const call = t.client.StreamEvents(meta());
    const ended = new Promise<ServiceError>((resolve) => call.on('error', resolve));
    call.write(create(EventChunkSchema, { chunkId: 1n, events: [scalar('a')] }));
    await until(() => t.ingest.sessions[0]?.committed === true, 'commit');
    const started = Date.now();
    await t.stop(50);
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await ended).code).toBeGreaterThan(0);
    expect(t.ingest.sessions[0]?.context.signal?.aborted).toBe(true);
  });
});
