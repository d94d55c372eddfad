/**
 * Generated gRPC ingest calls (Add, AddBatch, StreamEvents): hostile events
 * as protobuf (NaN and infinite doubles, extreme sint64, strings of any
 * character), protobuf bytes no encoder would write (invalid UTF-8, wrong
 * wire types, truncation, nested groups), hostile metadata, and well-formed
 * siblings in the caller's witness tasks.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import {
  EventBatchSchema,
  EventChunkSchema,
  EventSchema,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { idRef } from './field-values.js';
import { IdRef, resolveId, type CompanyKey, type World } from './fuzz-world.js';
import { longString, nastyString } from './hostile-values.js';
import { SiblingSlot, type AuthKind } from './http-case.js';

export type GrpcOp = 'grpc.Add' | 'grpc.AddBatch' | 'grpc.StreamEvents';

/** An Event with its entity fields symbolic. */
export interface ProtoEventSpec {
  [field: string]: string | number | bigint | boolean | number[] | IdRef | undefined;
}

export type GrpcMessage =
  | { kind: 'events'; events: Array<ProtoEventSpec | SiblingSlot> }
  /** Hand-written protobuf bytes (hex) of one message. */
  | { kind: 'raw'; hex: string }
  /** An Event whose `task` holds these bytes (invalid UTF-8). */
  | { kind: 'bad-utf8'; taskHex: string }
  | { kind: 'groups'; depth: number }
  /** `count` empty events (2 bytes each, cut to the message limit), the most a message of that size can hold. */
  | { kind: 'many-events'; count: number };

export interface GrpcCase {
  transport: 'grpc';
  cls: string;
  op: GrpcOp;
  auth: AuthKind;
  caller: CompanyKey;
  metadata: Array<[string, string]>;
  messages: GrpcMessage[];
}

/** A resolved sibling event, as the ledger writes it. */
export type ProtoSiblingWriter = (slot: SiblingSlot) => Record<string, unknown>;

const TYPES = ['training_stats_scalar', 'training_stats_vector', 'training_debug_image', 'plot', 'log'];
const hostileText = fc.oneof({ weight: 5, arbitrary: nastyString }, { weight: 1, arbitrary: longString });
const hostileDouble = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, 1e308, -1e308, -0, 5e-324, 2 ** 63, 1e20),
);
const hostileSint64 = fc.oneof(
  fc.bigInt({ min: -5n, max: 1000n }),
  fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 31n), 2n ** 31n),
);

const protoEvent: fc.Arbitrary<ProtoEventSpec> = fc.record(
  {
    type: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TYPES) }, { weight: 1, arbitrary: hostileText }),
    task: fc.oneof(
      { weight: 6, arbitrary: idRef(['target', 'witness', 'witness', 'model'], { destructive: false }) },
      { weight: 1, arbitrary: hostileText },
    ),
    iter: hostileSint64,
    metric: fc.oneof(fc.constantFrom('loss', ''), hostileText),
    variant: fc.oneof(fc.constantFrom('v', ''), hostileText),
    value: hostileDouble,
    values: fc.array(hostileDouble, { maxLength: 4 }),
    timestampMs: hostileDouble,
    timestampText: fc.oneof(
      fc.constantFrom('2024-06-10T06:13:20.200Z', '1e20', '1e999', 'NaN', '+275760-09-13T00:00:00.001Z'),
      hostileText,
    ),
    worker: hostileText,
    msg: hostileText,
    level: hostileText,
    url: hostileText,
    key: hostileText,
    plotStr: hostileText,
    modelEvent: fc.boolean(),
    model: idRef(['model', 'target'], { destructive: false }),
    allowLocked: fc.boolean(),
    xAxisLabel: hostileText,
    skipValidation: fc.boolean(),
    valuesPresent: fc.boolean(),
  },
  { requiredKeys: [] },
);

const witness = fc.nat(3).map((index) => new IdRef('own', 'witness', index));
const protoPoison: fc.Arbitrary<ProtoEventSpec[]> = fc
  .tuple(witness, fc.bigInt({ min: 0n, max: 1_000_000n }))
  .chain(([task, n]) =>
    fc.constantFrom<ProtoEventSpec[]>(
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'p', variant: 'v', value: Infinity }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'p', variant: 'v', value: Number.NaN }],
      [
        { type: 'training_stats_scalar', task, iter: n, metric: 'big', variant: 'v', value: 1e308 },
        { type: 'training_stats_scalar', task, iter: n + 1n, metric: 'big', variant: 'v', value: 1e308 },
      ],
      [{ type: 'log', task, msg: 'ts 1e20', timestampMs: 1e20 }],
      [{ type: 'log', task, msg: 'ts nan', timestampMs: Number.NaN }],
      [{ type: 'log', task, msg: 'ts text', timestampText: '1e20' }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'ts', variant: 'v', value: 1, timestampMs: 2 ** 63 }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'x'.repeat(70_000), variant: 'v', value: 1 }],
      [{ type: 'training_stats_scalar', task, iter: 2n ** 63n - 1n, metric: 'it', variant: 'v', value: 1 }],
      [{ type: 'training_stats_vector', task, iter: n, metric: 'vec', variant: 'v', values: [Infinity, Number.NaN] }],
    ),
  );

const siblings = fc.array(
  fc.nat(3).map((w) => new SiblingSlot(w)),
  { maxLength: 3 },
);
const eventsMessage: fc.Arbitrary<GrpcMessage> = fc
  .tuple(
    fc.array(fc.oneof({ weight: 2, arbitrary: protoEvent.map((e) => [e]) }, { weight: 2, arbitrary: protoPoison }), {
      minLength: 1,
      maxLength: 5,
    }),
    siblings,
  )
  .map(([groups, slots]) => ({ kind: 'events' as const, events: [...groups.flat(), ...slots] }));

const rawMessage: fc.Arbitrary<GrpcMessage> = fc.oneof(
  fc
    .constantFrom(
      'ff',
      '0a',
      '0aff',
      '0a05616263',
      '12',
      '08ffffffffffffffffff01',
      '0b',
      '0c',
      '0f',
      '3a0a0a08',
      'ffffffffff0f',
      '0a80808080f001',
      '7a00',
      '00',
      '',
    )
    .map((hex) => ({ kind: 'raw' as const, hex })),
  fc
    .constantFrom('c328', 'eda080', 'ff', 'c0af', 'f4908080')
    .map((taskHex) => ({ kind: 'bad-utf8' as const, taskHex })),
  fc.constantFrom(1_000, 10_000, 100_000).map((depth) => ({ kind: 'groups' as const, depth })),
  // Below and beyond the bound of docs/grpc.md ("Events per message"): 1,000 + one per 16 bytes.
  fc.constantFrom(1_000, 2_000, 100_000, 100_000_000).map((count) => ({ kind: 'many-events' as const, count })),
);

const GRPC_AUTH: AuthKind[] = [
  'bearer',
  'bearer',
  'basic',
  'none',
  'forged-signature',
  'alg-none',
  'expired',
  'garbage-bearer',
  'lowercase-bearer',
  'basic-wrong-secret',
  'huge-bearer',
];
const op = fc.constantFrom<GrpcOp>('grpc.Add', 'grpc.AddBatch', 'grpc.StreamEvents');
const metadata = fc.array(
  fc.tuple(
    fc.constantFrom('x-clearml-worker', 'x-trains-worker', 'x-clearml-act-as', 'clearml-result-code'),
    nastyString.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  ),
  { maxLength: 2 },
);

function grpcCase(
  cls: string,
  message: fc.Arbitrary<GrpcMessage>,
  auth: fc.Arbitrary<AuthKind>,
): fc.Arbitrary<GrpcCase> {
  return fc
    .record({
      op,
      auth,
      caller: fc.constantFrom<CompanyKey>('a', 'b'),
      metadata,
      messages: fc.array(message, { minLength: 1, maxLength: 3 }),
    })
    .map((r) => ({
      transport: 'grpc' as const,
      cls,
      ...r,
      messages: r.op === 'grpc.Add' ? r.messages.slice(0, 1) : r.messages,
    }));
}

export const GRPC_CLASSES = ['grpc-events', 'grpc-raw', 'grpc-auth'] as const;

export function grpcCaseArbitrary(
  skip: ReadonlySet<string>,
): Array<{ cls: string; weight: number; arbitrary: fc.Arbitrary<GrpcCase> }> {
  const all = [
    {
      cls: 'grpc-events',
      weight: 8,
      arbitrary: grpcCase('grpc-events', eventsMessage, fc.constant<AuthKind>('bearer')),
    },
    {
      cls: 'grpc-raw',
      weight: 2,
      arbitrary: grpcCase('grpc-raw', fc.oneof(rawMessage, eventsMessage), fc.constant<AuthKind>('bearer')),
    },
    { cls: 'grpc-auth', weight: 1, arbitrary: grpcCase('grpc-auth', eventsMessage, fc.constantFrom(...GRPC_AUTH)) },
  ];
  return all.filter((entry) => !skip.has(entry.cls));
}

function varint(value: bigint): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

function lengthDelimited(field: number, bytes: Uint8Array | number[]): number[] {
  return [...varint(BigInt((field << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes];
}

function resolveEvent(spec: ProtoEventSpec, world: World, caller: CompanyKey): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (value === undefined) continue;
    out[key] = value instanceof IdRef ? resolveId(value, world, caller) : value;
  }
  if (out.timestampMs !== undefined && out.timestampText !== undefined) delete out.timestampText;
  const { timestampMs, timestampText, ...rest } = out;
  if (timestampMs !== undefined) rest.timestamp = { case: 'timestampMs', value: timestampMs };
  else if (timestampText !== undefined) rest.timestamp = { case: 'timestampText', value: timestampText };
  return rest;
}

/**
 * The bytes of one message of the call: an Event for Add, an EventBatch for
 * AddBatch, an EventChunk (numbered by `index`) for StreamEvents. Sibling
 * slots are filled by `sibling`, which records them with the ledger.
 */
export function messageBytes(
  c: GrpcCase,
  message: GrpcMessage,
  index: number,
  world: World,
  sibling: ProtoSiblingWriter,
  maxMessageBytes: number,
): Uint8Array {
  const wrap = (eventBytes: number[][]): Uint8Array => {
    if (c.op === 'grpc.Add') return Uint8Array.from(eventBytes[0] ?? []);
    const field = c.op === 'grpc.AddBatch' ? 1 : 2;
    const head = c.op === 'grpc.StreamEvents' ? [...varint(8n), ...varint(BigInt(index))] : [];
    return Uint8Array.from([...head, ...eventBytes.flatMap((bytes) => lengthDelimited(field, bytes))]);
  };
  switch (message.kind) {
    case 'events': {
      // Add carries one event: only the events actually sent may become siblings (the ledger would count the others as acknowledged).
      const sent = c.op === 'grpc.Add' ? message.events.slice(0, 1) : message.events;
      const events = sent.map((e) => (e instanceof SiblingSlot ? sibling(e) : resolveEvent(e, world, c.caller)));
      if (c.op === 'grpc.Add') return toBinary(EventSchema, create(EventSchema, events[0] as never));
      if (c.op === 'grpc.AddBatch')
        return toBinary(EventBatchSchema, create(EventBatchSchema, { events: events as never }));
      return toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: BigInt(index), events: events as never }));
    }
    case 'raw':
      return Uint8Array.from(Buffer.from(message.hex, 'hex'));
    case 'bad-utf8': {
      const event = [
        ...lengthDelimited(1, Buffer.from('log')),
        ...lengthDelimited(2, Buffer.from(message.taskHex, 'hex')),
        ...lengthDelimited(11, Buffer.from('m')),
      ];
      return wrap([event]);
    }
    case 'groups': {
      // Field 99 as nested start-group/end-group pairs: an unknown field a parser must skip.
      const start = varint(BigInt((99 << 3) | 3));
      const end = varint(BigInt((99 << 3) | 4));
      const event = [
        ...lengthDelimited(1, Buffer.from('log')),
        ...Array.from({ length: message.depth }, () => start).flat(),
        ...Array.from({ length: message.depth }, () => end).flat(),
      ];
      return wrap([event]);
    }
    case 'many-events': {
      if (c.op === 'grpc.Add') return new Uint8Array(0);
      const head = c.op === 'grpc.StreamEvents' ? [...varint(8n), ...varint(BigInt(index))] : [];
      const count = Math.max(1, Math.min(message.count, Math.floor((maxMessageBytes - 64) / 2)));
      const out = new Uint8Array(head.length + 2 * count);
      out.set(head);
      // Each event is its field's tag and a zero length.
      const tag = c.op === 'grpc.AddBatch' ? (1 << 3) | 2 : (2 << 3) | 2;
      for (let i = 0; i < count; i++) out[head.length + 2 * i] = tag;
      return out;
    }
  }
}
