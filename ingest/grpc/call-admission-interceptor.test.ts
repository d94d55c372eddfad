// The deadline of a gRPC message counts the client's time only (docs/grpc.md, "Calls held open"): while grpc-js
// holds a stream paused because its handler has not taken the last message, the clock of the messages not yet
// whole stops.
import http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyMemoryBudget } from '../../shared/http/body-memory-budget.js';
import { ChunkAckSchema, EventChunkSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { startTestServer, type TestServer } from './grpc-ingest-test-harness.js';
import { OpenCallLimit } from './open-call-limit.js';

const DEADLINE_MS = 300;
let t: TestServer | undefined;
let session: http2.ClientHttp2Session | undefined;

afterEach(async () => {
  session?.destroy();
  await t?.stop();
});

function framedChunk(chunkId: number): Buffer {
  const chunk = create(EventChunkSchema, { chunkId: BigInt(chunkId), events: [{ type: 'log', task: 't1', msg: 'm' }] });
  const message = toBinary(EventChunkSchema, chunk);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** A StreamEvents call made by hand on a server whose first commit takes four deadlines. */
async function slowFirstCommitStream() {
  const server = await startTestServer({
    admission: {
      budget: new BodyMemoryBudget(64 * 1024 * 1024),
      openCalls: new OpenCallLimit(100),
      messageMs: DEADLINE_MS,
      openMessageMs: DEADLINE_MS,
    },
  });
  t = server;
  let commits = 0;
  server.ingest.onCommit = async (s) => {
    // Meanwhile the stream stays paused.
    if (commits++ === 0) await new Promise((resolve) => setTimeout(resolve, 4 * DEADLINE_MS));
    return { added: s.events.length, errors: 0, errors_info: {} };
  };
  session = http2.connect(`http://127.0.0.1:${server.port}`);
  const stream = session.request({
    ':method': 'POST',
    ':path': '/clearml.events.v1.EventsIngest/StreamEvents',
    'content-type': 'application/grpc',
    te: 'trailers',
    authorization: 'Bearer good',
  });
  const acks: bigint[] = [];
  let received = Buffer.alloc(0);
  stream.on('data', (data: Buffer) => {
    received = Buffer.concat([received, data]);
    while (received.length >= 5 && received.length >= 5 + received.readUInt32BE(1)) {
      const end = 5 + received.readUInt32BE(1);
      acks.push(fromBinary(ChunkAckSchema, received.subarray(5, end)).chunkId);
      received = received.subarray(end);
    }
  });
  const status = new Promise<{ code?: string; resultCode?: string }>((resolve) => {
    const pick = (h: http2.IncomingHttpHeaders) => ({
      code: h['grpc-status'] as string | undefined,
      resultCode: h['clearml-result-code'] as string | undefined,
    });
    stream.on('trailers', (trailers) => resolve(pick(trailers)));
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) resolve(pick(headers));
    });
  });
  // Three chunks and the first 8 bytes of a fourth in one write: the fourth's prefix arrives with them.
  const fourth = framedChunk(4);
  stream.write(Buffer.concat([framedChunk(1), framedChunk(2), framedChunk(3), fourth.subarray(0, 8)]));
  const threeAcks = new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (acks.length === 3) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
    void status.then(({ code }) => {
      clearInterval(poll);
      reject(new Error(`the call ended with status ${code} after ${acks.length} acks`));
    });
  });
  return { stream, acks, status, threeAcks, restOfFourth: fourth.subarray(8) };
}

describe('message deadlines', () => {
  it("stop while the handler has not taken the last message: a chunk begun behind a slow commit is the client's in time", async () => {
    const call = await slowFirstCommitStream();
    await call.threeAcks;
    call.stream.end(call.restOfFourth);
    expect(await call.status).toEqual({ code: '0', resultCode: undefined });
    expect(call.acks).toEqual([1n, 2n, 3n, 4n]);
  });

  it('run again once the handler takes messages: the chunk never finished ends the call with 408', async () => {
    const call = await slowFirstCommitStream();
    await call.threeAcks;
    expect(await call.status).toEqual({ code: '3', resultCode: '408' });
  });
});
