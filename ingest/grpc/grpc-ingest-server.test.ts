import { connect } from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { eventsIngestDefinition } from './events-ingest-definition.js';
import { EventBatchSchema, EventSchema, type AddResult } from './gen/clearml/events/v1/events_ingest_pb.js';
import {
  clearmlCodes,
  IDENTITY,
  meta,
  rejection,
  scalar,
  startTestServer,
  until,
  type EventInit,
  type TestServer,
} from './grpc-ingest-test-harness.js';

let t: TestServer;

beforeEach(async () => {
  t = await startTestServer();
});

afterEach(() => t.stop());

function add(event: EventInit, metadata = meta()): Promise<AddResult> {
  return new Promise((resolve, reject) => {
    t.client.Add(create(EventSchema, event), metadata, (err: ServiceError | null, result: AddResult) =>
      err ? reject(err) : resolve(result),
    );
  });
}

function addBatch(batches: EventInit[][], metadata = meta()): Promise<AddResult> {
  return new Promise((resolve, reject) => {
    const call = t.client.AddBatch(metadata, (err: ServiceError | null, result: AddResult) =>
      err ? reject(err) : resolve(result),
    );
    for (const events of batches) call.write(create(EventBatchSchema, { events }));
    call.end();
  });
}

/** Sends one batch over raw HTTP/2, then drops the connection (a training node dying mid-request). */
function addBatchThenDropConnection(events: EventInit[]): () => void {
  const session = connect(`http://127.0.0.1:${t.port}`);
  session.on('error', () => undefined);
  const request = session.request({
    ':method': 'POST',
    ':path': '/clearml.events.v1.EventsIngest/AddBatch',
    'content-type': 'application/grpc',
    te: 'trailers',
    authorization: 'Bearer good',
  });
  request.on('error', () => undefined);
  const message = toBinary(EventBatchSchema, create(EventBatchSchema, { events }));
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  request.write(Buffer.concat([prefix, message]));
  return () => session.destroy();
}

/** A client that sends request bytes as given, to send what no protobuf library would. */
function rawBytesClient() {
  const asBytes = { requestSerialize: (bytes: Buffer) => bytes };
  const RawClient = makeClientConstructor(
    {
      Add: { ...eventsIngestDefinition.Add, ...asBytes },
      AddBatch: { ...eventsIngestDefinition.AddBatch, ...asBytes },
    },
    'clearml.events.v1.EventsIngest',
  );
  return new RawClient(`127.0.0.1:${t.port}`, credentials.createInsecure());
}

describe('Add', () => {
  it('feeds the event as its JSON form and answers the session result', async () => {
    const result = await add(scalar('t1', 7), meta({ authorization: 'Bearer good', 'x-clearml-worker': 'gpu-7' }));
    expect(result).toMatchObject({ added: 1, errors: 0, errorsInfo: {} });
    const [session] = t.ingest.sessions;
    expect(session?.events).toEqual([
      { type: 'training_stats_scalar', task: 't1', iter: 7, metric: 'm', variant: 'v', value: 1 },
    ]);
    expect(session?.context).toMatchObject({ identity: IDENTITY, workerHeader: 'gpu-7' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(session?.context.signal?.aborted).toBe(false);
  });

  it('takes the worker from x-trains-worker, and none without either header', async () => {
    await add(scalar('t1'), meta({ authorization: 'Bearer good', 'x-trains-worker': 'old-sdk' }));
    await add(scalar('t1'));
    expect(t.ingest.sessions.map((s) => s.context.workerHeader)).toEqual(['old-sdk', undefined]);
  });

  it('answers a rejected event with the ClearML 400/131 error', async () => {
    t.ingest.onCommit = () =>
      Promise.reject(apiError('events_not_added', undefined, { "Event must have a 'type' field": 1 }));
    const err = await rejection(add({ task: 't1' }));
    expect([err.code, err.details, ...clearmlCodes(err)]).toEqual([
      status.INVALID_ARGUMENT,
      "Events not added: Event must have a 'type' field=1",
      '400',
      '131',
    ]);
  });
});

describe('AddBatch', () => {
  it('adds the events of every batch, in order, to one session committed once', async () => {
    const result = await addBatch([[scalar('a', 1), scalar('a', 2)], [], [scalar('b', 3)]]);
    expect(result).toMatchObject({ added: 3, errors: 0 });
    expect(t.ingest.sessions).toHaveLength(1);
    expect(t.ingest.sessions[0]?.events.map((e) => [e.task, e.iter])).toEqual([
      ['a', 1],
      ['a', 2],
      ['b', 3],
    ]);
    expect(t.ingest.sessions[0]?.committed).toBe(true);
  });

  it('passes the errors_info of the session result on', async () => {
    t.ingest.onCommit = async () => ({ added: 1, errors: 2, errors_info: { 'Invalid task id x': 2 } });
    const result = await addBatch([[scalar('a'), scalar('x'), scalar('x')]]);
    expect(result).toMatchObject({ added: 1, errors: 2, errorsInfo: { 'Invalid task id x': 2 } });
  });

  it('discards the session when the connection drops before the request is complete', async () => {
    const drop = addBatchThenDropConnection([scalar('a')]);
    await until(() => t.ingest.sessions[0]?.events.length === 1, 'first batch');
    drop();
    await until(() => t.ingest.sessions[0]?.discarded === true, 'discard');
    expect(t.ingest.sessions[0]?.committed).toBe(false);
  });

  it('stops the session when a grpc-js client cancels', async () => {
    // grpc-js sends END_STREAM before RST_STREAM: the commit may start, but its signal aborts.
    t.ingest.onCommit = (s) =>
      new Promise((_, reject) => s.context.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    const call = t.client.AddBatch(meta(), () => undefined);
    call.write(create(EventBatchSchema, { events: [scalar('a')] }));
    await until(() => t.ingest.sessions[0]?.events.length === 1, 'first batch');
    call.cancel();
    const [session] = t.ingest.sessions;
    await until(() => session?.discarded === true || session?.context.signal?.aborted === true, 'session stopped');
    expect(t.logged.filter((l) => l.level !== 'info')).toEqual([]);
  });
});

describe('errors', () => {
  it('refuses missing or bad credentials with UNAUTHENTICATED before any session', async () => {
    const missing = await rejection(add(scalar('t1'), meta({})));
    expect([missing.code, missing.details, ...clearmlCodes(missing)]).toEqual([
      status.UNAUTHENTICATED,
      'Unauthorized (missing credentials)',
      '401',
      '20',
    ]);
    const bad = await rejection(addBatch([[scalar('t1')]], meta({ authorization: 'Bearer nope' })));
    expect([bad.code, bad.details, ...clearmlCodes(bad)]).toEqual([
      status.UNAUTHENTICATED,
      'Invalid token',
      '401',
      '30',
    ]);
    expect(t.ingest.sessions).toHaveLength(0);
  });

  it('maps a failed commit to the catalogue status, message and codes', async () => {
    t.ingest.onCommit = () => Promise.reject(apiError('events_not_persisted'));
    const err = await rejection(addBatch([[scalar('t1')]]));
    expect([err.code, err.details, ...clearmlCodes(err)]).toEqual([
      status.UNAVAILABLE,
      'Events could not be persisted, retry later',
      '503',
      '0',
    ]);
    expect(t.logged.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('passes extra error headers on as metadata', async () => {
    t.ingest.onCommit = () =>
      Promise.reject(apiError('ingest_overloaded', undefined, undefined, { headers: { 'Retry-After': '2' } }));
    const err = await rejection(add(scalar('t1')));
    expect([err.code, err.metadata.get('retry-after')[0], ...clearmlCodes(err)]).toEqual([
      status.RESOURCE_EXHAUSTED,
      '2',
      '429',
      '0',
    ]);
  });

  it('answers unexpected errors as INTERNAL without their text, and logs them', async () => {
    t.ingest.onCommit = () => Promise.reject(new Error('redis exploded at /srv/secret.js:12'));
    const err = await rejection(add(scalar('t1')));
    expect([err.code, err.details, ...clearmlCodes(err)]).toEqual([
      status.INTERNAL,
      'Internal server error',
      '500',
      '0',
    ]);
    expect(t.logged.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('answers a message that does not parse with 400/0 INVALID_ARGUMENT', async () => {
    const raw = rawBytesClient();
    const truncated = Buffer.from([0x0a, 0x7f]); // field 1, length 127, no bytes
    const unary = await rejection(
      new Promise((resolve, reject) =>
        raw.Add(truncated, meta(), (e: ServiceError | null) => (e ? reject(e) : resolve(undefined))),
      ),
    );
    const batch = await rejection(
      new Promise((resolve, reject) => {
        const call = raw.AddBatch(meta(), (e: ServiceError | null) => (e ? reject(e) : resolve(undefined)));
        call.write(truncated);
        call.end();
      }),
    );
    raw.close();
    for (const err of [unary, batch]) {
      expect([err.code, ...clearmlCodes(err)]).toEqual([status.INVALID_ARGUMENT, '400', '0']);
      expect(err.details).toMatch(/^The browser \(or proxy\) sent a request/);
    }
    expect(t.ingest.sessions.map((s) => s.discarded)).toEqual([true]);
  });

  it('refuses messages over maxMessageBytes before any session', async () => {
    await t.stop();
    t = await startTestServer({ maxMessageBytes: 1024 });
    const err = await rejection(add({ ...scalar('t1'), msg: 'x'.repeat(2048) }));
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(t.ingest.sessions).toHaveLength(0);
  });
});
