/**
 * fast-check generators of StreamEvents streams around the plain scalar
 * event (ingest/events/plain-scalar-event.ts): SDK-shaped scalar events
 * written record by record, so that their order, repetition and encoding
 * vary as protobuf allows (duplicates, non-canonical varints, packed values,
 * unknown fields); near misses of every field; other events; damaged and
 * junk chunks. And a runner of the real StreamEvents handler over the
 * ingest session with or without its fused path, answering everything the
 * stream did that anyone can observe (its acks and final status, the
 * messages published byte for byte, the in-flight budget taken, the metrics
 * and log lines told).
 */
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { create, toBinary, toJson } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Metadata, type StatusObject } from '@grpc/grpc-js';
import fc from 'fast-check';
import { MAX_ENTITY_ID_LENGTH, MAX_NAME_LENGTH, MAX_TIMESTAMP } from '../events/event-limits.js';
import type { IngestMetrics } from '../events/ingest-metrics.js';
import type { IngestService } from '../events/ingest-port.js';
import { generalOnly, observedService, type Limits, type Observed } from '../http/plain-scalar-test-harness.js';
import { ChunkAckSchema, EventSchema, type ChunkAck } from './gen/clearml/events/v1/events_ingest_pb.js';
import type { GrpcIngestDeps } from './grpc-call-context.js';
import type { GrpcMetrics } from './grpc-metrics.js';
import { streamEventsHandler } from './stream-events-handler.js';

/** One record of an Event: its field number (for edits) and its bytes. */
type Rec = [field: number, bytes: Uint8Array];

const writer = (field: number, type: WireType) => new BinaryWriter().tag(field, type);
const stringRec = (field: number) => (text: string) =>
  [field, writer(field, WireType.LengthDelimited).string(text).finish()] as Rec;
const doubleRec = (field: number) => (value: number) =>
  [field, writer(field, WireType.Bit64).double(value).finish()] as Rec;

/** A varint as encoders write it, or padded to more bytes than it needs (valid protobuf all the same). */
function varint(value: bigint, padding: number): number[] {
  const bytes: number[] = [];
  do {
    bytes.push(Number(value & 0x7fn));
    value >>= 7n;
  } while (value > 0n);
  for (let i = 0; i < padding && bytes.length < 10; i++) bytes.push(0);
  return bytes.map((b, i) => (i < bytes.length - 1 ? b | 0x80 : b));
}

const varintRec = (field: number, value: bigint, padding: number): Rec => [
  field,
  new Uint8Array([...writer(field, WireType.Varint).finish(), ...varint(value, padding)]),
];
const zigzag = (value: bigint) => (value >= 0n ? value << 1n : (-value << 1n) - 1n);
const padding = fc.oneof(
  { weight: 12, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
);

const TASKS = ['t1', 'task-2', 'p-t3'];
const OTHER_TASKS = ['abc.DEF_9', 'L-locked', 'F-foreign', 'U-unknown', 'N-new'];
const task = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...TASKS) },
  { weight: 2, arbitrary: fc.constantFrom(...OTHER_TASKS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'a'.repeat(MAX_ENTITY_ID_LENGTH),
      'a'.repeat(MAX_ENTITY_ID_LENGTH + 1),
      'bad id',
      'é',
      't1\u0000',
      't\u00e91',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/) },
);

const name = (names: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...names) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'a b',
        'x,y=z',
        'q"q',
        'a\\b',
        '\u0000',
        '\t\n\u001f\u007f',
        'é',
        '\u{1f600}',
        'x'.repeat(MAX_NAME_LENGTH),
        'x'.repeat(MAX_NAME_LENGTH + 1),
        '_ignored',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 8 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
  );

const iter = fc.oneof(
  { weight: 12, arbitrary: fc.bigInt({ min: 0n, max: 100_000n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0n,
      -1n,
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 53n + 1n,
      -(2n ** 53n) + 1n,
      -(2n ** 53n),
      -(2n ** 53n) - 1n,
      2n ** 63n - 1n,
      -(2n ** 63n),
      -9_200_000_000_000_000_000n,
      -9_199_999_999_999_999_999n,
      -9_300_000_000_000_000_000n,
      -2147483648n,
    ),
  },
);

const value = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 999 }).map((i) => i / 7) },
  { weight: 3, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.float().map((f) => f) },
  { weight: 1, arbitrary: fc.integer() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -0,
      1,
      -1.5,
      1e21,
      1e-7,
      1e-6,
      0.1 + 0.2,
      5e-324,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      2 ** 53,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ),
  },
);

const timestampMs = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }) },
  { weight: 1, arbitrary: fc.double({ min: -10, max: MAX_TIMESTAMP + 10 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -0,
      -0.5,
      0.5,
      -1,
      MAX_TIMESTAMP,
      MAX_TIMESTAMP + 1,
      MAX_TIMESTAMP + 0.5,
      1718000000123.7,
      2 ** 53 + 2,
      1e300,
      5e-324,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ),
  },
);

const bool = (field: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(0n, 1n).map((b) => varintRec(field, b, 0)) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.bigInt({ min: 0n, max: 300n }), padding).map(([b, p]) => varintRec(field, b, p)),
    },
  );

/** Records of the other fields: meaningless to a scalar, or not quite. */
const extraRecord: fc.Arbitrary<Rec> = fc.oneof(
  fc
    .oneof(
      // x_axis_label and worker: what an SDK event might well carry.
      { weight: 4, arbitrary: fc.constantFrom(19, 10) },
      { weight: 3, arbitrary: fc.constantFrom(11, 12, 13, 14, 15, 17) },
    )
    .chain((field) => fc.constantFrom('', 'node-7', 'epoch', 'x'.repeat(5000)).map(stringRec(field))),
  fc.constantFrom(20, 21).chain((field) => bool(field)),
  value.map(doubleRec(7)),
  fc.array(value, { maxLength: 3 }).map((values): Rec => {
    const packed = new BinaryWriter();
    for (const v of values) packed.double(v);
    return [7, writer(7, WireType.LengthDelimited).bytes(packed.finish()).finish()];
  }),
  // Unknown to the schema: the chunk goes through protobuf-es.
  fc.tuple(fc.integer({ min: 22, max: 40 }), fc.bigInt({ min: 0n, max: 1000n })).map(([f, n]) => varintRec(f, n, 0)),
);

/** How a chunk's events carry model_event and allow_locked: a request mixing values is refused before it publishes. */
interface Flags {
  modelEvent: fc.Arbitrary<Rec | undefined>;
  allowLocked: fc.Arbitrary<Rec | undefined>;
  /** what most of the chunk's events have */
  usuallyLocked: boolean | undefined;
}

/** The records of an SDK scalar event, in protobuf-es's order; each sometimes a near miss, sometimes absent. */
const scalarRecords = ({ modelEvent, allowLocked }: Flags): fc.Arbitrary<Rec[]> =>
  fc
    .record(
      {
        type: fc
          .oneof(
            { weight: 20, arbitrary: fc.constant('training_stats_scalar') },
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                'training stats scalar',
                'training_stats_scalaR',
                'training_stats_scalar ',
                'training_stats_vector',
                'log',
                '',
              ),
            },
          )
          .map(stringRec(1)),
        task: task.map(stringRec(2)),
        iter: fc.tuple(iter, padding).map(([n, p]) => varintRec(3, zigzag(n), p)),
        metric: name(['metric0', 'loss']).map(stringRec(4)),
        variant: name(['variant0', 'a b', 'x,y']).map(stringRec(5)),
        value: value.map(doubleRec(6)),
        timestamp: fc.oneof(
          { weight: 12, arbitrary: timestampMs.map(doubleRec(8)) },
          { weight: 1, arbitrary: fc.constantFrom('1718000000123', '2024-06-10T06:13:20Z', 'x').map(stringRec(9)) },
        ),
        modelEvent,
        allowLocked,
        extra: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: extraRecord }),
      },
      { requiredKeys: ['type', 'task', 'iter', 'value', 'modelEvent', 'allowLocked', 'extra'] },
    )
    .map((r) =>
      [r.type, r.task, r.iter, r.metric, r.variant, r.value, r.timestamp, r.modelEvent, r.allowLocked, r.extra].filter(
        (rec): rec is Rec => rec !== undefined,
      ),
    );

type Edit = (records: Rec[]) => Rec[];
const edit = (flags: Flags): fc.Arbitrary<Edit> =>
  fc.oneof(
    fc.nat().map((n) => (r: Rec[]) => r.filter((_, i) => i !== n % Math.max(r.length, 1))),
    fc.tuple(fc.nat(), fc.nat()).map(([n, at]) => (r: Rec[]) => {
      const copy = [...r];
      const rec = copy[n % Math.max(copy.length, 1)];
      if (rec !== undefined) copy.splice(at % (copy.length + 1), 0, rec);
      return copy;
    }),
    fc.tuple(scalarRecords(flags), fc.nat(), fc.nat()).map(([other, n, at]) => (r: Rec[]) => {
      const copy = [...r];
      const rec = other[n % other.length];
      if (rec !== undefined) copy.splice(at % (copy.length + 1), 0, rec);
      return copy;
    }),
    fc.tuple(extraRecord, fc.nat()).map(([rec, at]) => (r: Rec[]) => {
      const copy = [...r];
      copy.splice(at % (copy.length + 1), 0, rec);
      return copy;
    }),
    fc.array(fc.nat(), { minLength: 2, maxLength: 10 }).map((order) => (r: Rec[]) => {
      const copy = [...r];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = order[i % order.length]! % (i + 1);
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    }),
  );

const eventBytes = (records: Rec[]) => Buffer.concat(records.map(([, bytes]) => bytes));

/** Other events, as protobuf-es encodes them (with the chunk's allow_locked). */
const otherEvent = (allowLocked: boolean | undefined): fc.Arbitrary<Uint8Array> =>
  fc
    .record(
      {
        type: fc.constantFrom('training_stats_vector', 'training_debug_image', 'plot', 'log', 'training_stats_scalar'),
        task: fc.constantFrom(...TASKS, ...OTHER_TASKS),
        iter: fc.bigInt({ min: 0n, max: 100n }),
        metric: fc.constantFrom('metric0', 'loss', 'img'),
        variant: fc.constantFrom('variant0', 'a b'),
        value: value,
        values: fc.array(value, { maxLength: 3 }),
        url: fc.constantFrom('s3://b/k.png', 'http://x/y.jpg'),
        msg: fc.string({ maxLength: 8 }),
        plotStr: fc.constantFrom('{"data": []}', 'not json', ''),
        worker: fc.constantFrom('node-7', 'other'),
        xAxisLabel: fc.constantFrom('epoch', ''),
      },
      { requiredKeys: ['type', 'task'] },
    )
    .map((init) => toBinary(EventSchema, create(EventSchema, { ...init, allowLocked })));

/** A plain event mostly, its records edited now and then, or another event. */
const chunkEvent = (flags: Flags): fc.Arbitrary<Uint8Array> =>
  fc.oneof(
    { weight: 10, arbitrary: scalarRecords(flags).map(eventBytes) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(scalarRecords(flags), fc.array(edit(flags), { minLength: 1, maxLength: 3 }))
        .map(([records, edits]) => eventBytes(edits.reduce((r, e) => e(r), records))),
    },
    { weight: 1, arbitrary: otherEvent(flags.usuallyLocked) },
  );

/** A chunk: its id and events, their model_event and allow_locked mostly one way in the chunk, now and then any way. */
const chunk: fc.Arbitrary<Uint8Array> = fc
  .tuple(
    fc.constantFrom<Array<bigint | undefined>>([undefined], [0n], [1n]),
    fc.constantFrom<Array<bigint | undefined>>([undefined], [0n]),
    fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  )
  .chain(([[locked], [model], mixed]) => {
    const flag = (field: number, value: bigint | undefined) => {
      const usual = fc.constant(value === undefined ? undefined : varintRec(field, value, 0));
      return mixed ? fc.oneof({ weight: 30, arbitrary: usual }, { weight: 1, arbitrary: bool(field) }) : usual;
    };
    const usuallyLocked = locked === undefined ? undefined : locked === 1n;
    const events = chunkEvent({ modelEvent: flag(16, model), allowLocked: flag(18, locked), usuallyLocked });
    return fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.array(events, { maxLength: 60, size: 'medium' }));
  })
  .map(([chunkId, events]) => {
    const w = new BinaryWriter().tag(1, WireType.Varint).uint64(chunkId);
    for (const e of events) w.tag(2, WireType.LengthDelimited).bytes(e);
    return w.finish();
  });

/** Chunks changed at up to `maxEdits` bytes (replaced, inserted, or cut there): still protobuf now and then, malformed mostly. */
export const damaged = (chunks: fc.Arbitrary<Uint8Array>, maxEdits: number): fc.Arbitrary<Uint8Array> =>
  fc
    .tuple(
      chunks,
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat({ max: 2 })), {
        minLength: 1,
        maxLength: maxEdits,
      }),
    )
    .map(([bytes, edits]) => {
      let out = [...bytes];
      for (const [at, byte, kind] of edits) {
        const i = out.length === 0 ? 0 : at % out.length;
        if (kind === 0) out[i] = byte;
        else if (kind === 1) out.splice(i, 0, byte);
        else out = out.slice(0, i);
      }
      return new Uint8Array(out);
    });

/** A stream's chunks: mostly whole ones, sometimes a damaged one or junk. */
export const streamChunks: fc.Arbitrary<Uint8Array[]> = fc.array(
  fc.oneof(
    { weight: 12, arbitrary: chunk },
    { weight: 1, arbitrary: damaged(chunk, 3) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }) },
  ),
  { minLength: 1, maxLength: 3 },
);

/** Everything a stream did that anyone can observe. */
export interface ObservedStream extends Omit<Observed, 'outcome'> {
  acks: unknown[];
  status: unknown;
  calls: unknown[];
}

/** Runs a StreamEvents call of these chunks through the real handler; `fused`: whether sessions offer their fused path. Counts the events it took. */
export async function runStream(
  chunks: readonly Uint8Array[],
  options: Limits,
  fused: boolean,
  taken = { events: 0 },
): Promise<ObservedStream> {
  const observed: ObservedStream = { messages: [], held: [], metrics: [], acks: [], status: undefined, calls: [] };
  const service = observedService(options, observed);
  const ingest: IngestService = {
    begin: (context) => {
      const session = service.begin(context);
      if (!fused) return generalOnly(session);
      const fusedAdd = session.addPlainScalarEvent!.bind(session);
      session.addPlainScalarEvent = (bytes, start, end) => {
        const took = fusedAdd(bytes, start, end);
        if (took) taken.events += 1;
        return took;
      };
      return session;
    },
  };
  const { calls } = observed;
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const deps: GrpcIngestDeps = {
    ingest,
    authenticate: () => ({ user: 'u1', company: 'c1', role: 'user' }),
    logger: {
      info: (_obj, msg) => calls.push(['info', msg]),
      warn: (_obj, msg) => calls.push(['warn', msg]),
      error: (_obj, msg) => calls.push(['error', msg]),
    },
    metrics: {
      callEnded: (method, code) => {
        calls.push(['callEnded', method, code]);
        ended();
      },
      streamOpened: () => calls.push(['streamOpened']),
      streamClosed: () => calls.push(['streamClosed']),
      chunkAcked: (code) => calls.push(['chunkAcked', code]),
    } as GrpcMetrics,
    ingestMetrics: {
      received: (transport: string, bytes: number) => observed.metrics.push(['received', transport, bytes]),
    } as unknown as IngestMetrics,
  };
  const metadata = new Metadata();
  metadata.set('authorization', 'Bearer good');
  if (options.workerHeader !== undefined) metadata.set('x-clearml-worker', options.workerHeader);
  if (options.idempotencyKey !== undefined) metadata.set('idempotency-key', options.idempotencyKey);
  const input = Readable.from(
    chunks.map((c) => Buffer.from(c)),
    { objectMode: true },
  );
  const call = Object.assign(new EventEmitter(), {
    metadata,
    iterator: (opts: { destroyOnReturn: boolean }) => input.iterator(opts),
    write: (ack: ChunkAck) => {
      observed.acks.push(toJson(ChunkAckSchema, ack));
      return true;
    },
    end: () => calls.push(['end']),
    // The handler limits how far the call's stream reads ahead (read-ahead.ts): here, the input's.
    _readableState: (input as unknown as { _readableState: unknown })._readableState,
  });
  Object.defineProperty(call, 'readableHighWaterMark', { get: () => input.readableHighWaterMark });
  call.on('error', (status: StatusObject) => {
    observed.status = { code: status.code, details: status.details, metadata: status.metadata.toJSON() };
  });
  streamEventsHandler(deps)(call as never);
  await done;
  return observed;
}
