/**
 * fast-check generators of NDJSON add_batch bodies around the plain scalar
 * line (ingest/events/plain-scalar-line.ts): SDK-shaped lines, near misses
 * of every kind (key order, whitespace, escapes, duplicate and extra keys,
 * number texts JSON reads one way and line protocol another, bytes cut or
 * changed), other events and junk; and a runner of events.add_batch on a
 * body with or without the session's fused path, answering everything the
 * request did that anyone can observe (its answer or error, the messages
 * published byte for byte, the in-flight budget taken, the metrics told).
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { BufferPool } from '../events/buffer-pool.js';
import { hostileString, mostlyValidEvent, anyValue } from '../events/hostile-event-test-harness.js';
import { MAX_ENTITY_ID_LENGTH, MAX_TIMESTAMP } from '../events/event-limits.js';
import type { IngestMetrics } from '../events/ingest-metrics.js';
import type { IngestResult, IngestService, IngestSession } from '../events/ingest-port.js';
import { EventIngestService, type IngestSettings } from '../events/ingest-session.js';
import type { EntityStatus } from '../../shared/entities/entity-registry.js';
import type { CallContext } from '../../shared/protocol/operation.js';
import { HeldMemory } from '../publish/held-memory.js';
import { InflightBudget } from '../publish/inflight-budget.js';
import { addBatchOperation } from './add-batch-operation.js';
import { readBodyLimited } from '../../shared/http/body-reader.js';

type Member = [key: string, text: string];

const js = (value: unknown) => JSON.stringify(value) ?? 'null';

/** Python's repr of a float, roughly (the ClearML SDK's json.dumps): `1.0`, `1e-05`, `1e+16`. */
function pythonRepr(x: number): string {
  if (!Number.isFinite(x)) return js(x);
  const abs = Math.abs(x);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    return x.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  const text = String(x);
  return Number.isInteger(x) && !text.includes('e') ? `${text}.0` : text;
}

/** Texts of a JSON number (or not quite): what reads back the same and what does not. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(js) },
  { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(pythonRepr) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 999 }).map((i) => js(i / 7)) },
  { weight: 2, arbitrary: fc.integer({ min: -1000, max: 1000 }).map((i) => pythonRepr(i / 4)) },
  { weight: 3, arbitrary: fc.stringMatching(/^-?(0|[1-9][0-9]{0,23})(\.[0-9]{1,24})?([eE][+-]?[0-9]{1,3})?$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^-?0\.0{0,8}[1-9][0-9]{0,16}0{0,3}$/) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0',
      '-0',
      '-0.0',
      '0.0',
      '0.000',
      '1.50',
      '100.0',
      '1e400',
      '-1e400',
      '1e-400',
      '1E2',
      '1e+2',
      '0.000001',
      '0.0000001',
      '0.00001234',
      '1e21',
      '100000000000000000000',
      '1000000000000000000000',
      '123456789012345',
      '1234567890123456',
      '12345678901234567890',
      '0.1',
      '0.30000000000000004',
      '0.30000000000000001',
      '5e-324',
      '1.7976931348623157e308',
      '01',
      '+1',
      '.5',
      '1.',
      'NaN',
      '-Infinity',
      '"1.5"',
      '" 2 "',
      'null',
      'true',
      '[1]',
      '{}',
      '1e',
      '-',
      '2.5e-7',
      '0x10',
    ),
  },
);

/** Iteration texts: SDK integers, then what JSON or the checks read otherwise. */
const iterText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 100_000 }).map(String) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.stringMatching(/^-?[1-9][0-9]{12,20}$/) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '-0',
      '0',
      '12.0',
      '12.5',
      '1e3',
      '-2147483648',
      '-2147483649',
      '9223372036854775807',
      '9223372036854775808',
      '-9200000000000000000',
      '-9300000000000000000',
      '999999999999999',
      '1000000000000000',
      '"12"',
      'null',
      'true',
      '[]',
    ),
  },
);

const timestampText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX_TIMESTAMP }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0',
      '-0',
      '-1',
      String(MAX_TIMESTAMP),
      String(MAX_TIMESTAMP + 1),
      '1718000000123.7',
      '1.718e12',
      '"1718000000123"',
      '"2024-06-10T06:13:20Z"',
      'null',
      '9007199254740993',
      '1e400',
    ),
  },
);

const PLAIN_NAMES = ['metric0', 'loss', 'a b', 'x,y', 'k=v', '~tilde', '', ' ', 'Loss/Train', 'é', 'a\\b', 'q"q'];
const nameText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PLAIN_NAMES.slice(0, 5)).map(js) },
  { weight: 2, arbitrary: fc.constantFrom(...PLAIN_NAMES).map(js) },
  { weight: 2, arbitrary: fc.stringMatching(/^[ -~]{0,12}$/).map(js) },
  { weight: 2, arbitrary: hostileString.map(js) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '"\\u006coss"',
      '"lo\\/ss"',
      '"\u007f"',
      'null',
      '1',
      '[]',
      '"x'.padEnd(4100, 'x') + '"',
    ),
  },
);

const TASKS = ['t1', 'task-2', 'p-t3', 'abc.DEF_9', 'L-locked', 'F-foreign', 'U-unknown', 'N-new'];
const taskText: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...TASKS).map(js) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/).map(js) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      js('a'.repeat(MAX_ENTITY_ID_LENGTH)),
      js('a'.repeat(MAX_ENTITY_ID_LENGTH + 1)),
      '""',
      '"bad id"',
      '"é"',
      '"t\\u0031"',
      'null',
      '12',
    ),
  },
);

const literal = (...texts: string[]) => fc.constantFrom(...texts);

/** A few series and tasks, so that a body names each again and again (the fused path's caches), and now and then another. */
const fewNames = (names: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.stringMatching(/^[ -~]{0,6}$/) },
  );

/** The members of a plain SDK scalar event, in the SDK's order (sometimes without allow_locked or model_event). */
const plainMembers: fc.Arbitrary<Member[]> = fc
  .record(
    {
      timestamp: fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }).map(String) },
        { weight: 1, arbitrary: timestampText },
      ),
      type: literal('"training_stats_scalar"'),
      task: fc
        .oneof(
          { weight: 8, arbitrary: fc.constantFrom('t1', 'task-2', 'p-t3') },
          { weight: 1, arbitrary: fc.constantFrom(...TASKS) },
        )
        .map(js),
      iter: fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: 0, max: 100_000 }).map(String) },
        { weight: 1, arbitrary: literal('-2147483648', '-1', '-0', '0') },
        { weight: 1, arbitrary: iterText },
      ),
      metric: fewNames(['metric0', 'loss']).map(js),
      variant: fewNames(['variant0', 'a b', 'x,y']).map(js),
      value: fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }).map(js),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map(pythonRepr),
        fc.integer({ min: -1000, max: 1000 }).map((i) => pythonRepr(i / 8)),
        fc.integer({ min: 0, max: 999 }).map((i) => js(i / 7)),
        numberText,
      ),
      model_event: literal('false'),
      // true in whole bodies (ndjsonBody): a request mixing both is refused before it publishes.
      allow_locked: literal('false'),
    },
    { requiredKeys: ['timestamp', 'type', 'task', 'iter', 'metric', 'variant', 'value'] },
  )
  .map((r) => Object.entries(r).filter(([, text]) => text !== undefined) as Member[]);

/** The members of an SDK scalar event, in the SDK's order, each text either plain or a near miss. */
const sdkMembers: fc.Arbitrary<Member[]> = fc
  .record({
    timestamp: timestampText,
    type: fc.oneof(
      { weight: 9, arbitrary: literal('"training_stats_scalar"') },
      {
        weight: 1,
        arbitrary: literal(
          '"training stats scalar"',
          '"log"',
          '"plot"',
          '"training_stats_vector"',
          '"TRAINING_STATS_SCALAR"',
          'null',
        ),
      },
    ),
    task: taskText,
    iter: iterText,
    metric: nameText,
    variant: nameText,
    value: numberText,
    model_event: fc.oneof(
      { weight: 20, arbitrary: literal('false') },
      { weight: 1, arbitrary: literal('true', 'null', '0', '"false"') },
    ),

    // Mostly as the body's plain lines have it: a request mixing values is refused before it publishes.
    allow_locked: fc.oneof(
      { weight: 20, arbitrary: literal('false') },
      { weight: 1, arbitrary: literal('true', 'null', '1', '"true"') },
    ),
  })
  .map((r) => Object.entries(r) as Member[]);

const EXTRA_KEYS = [
  'worker',
  'x_axis_label',
  'ts',
  'model',
  'values',
  'url',
  'foo',
  '__proto__',
  'constructor',
  'Task',
  'task ',
];

/** Changes of the members' list: order, absence, duplicates, extra keys, hostile values, escaped keys. */
const memberEdit = fc.oneof(
  fc.constant((m: Member[]) => m),
  fc.nat().map((n) => (m: Member[]) => m.filter((_, i) => i !== n % Math.max(m.length, 1))),
  fc.tuple(fc.nat(), numberText).map(([n, text]) => (m: Member[]) => {
    const [key] = m[n % m.length] ?? ['value'];
    return [...m, [key, text] as Member];
  }),
  fc.tuple(fc.nat(), fc.nat()).map(([n, at]) => (m: Member[]) => {
    const copy = [...m];
    const member = copy[n % copy.length];
    if (member !== undefined) copy.splice(at % (copy.length + 1), 0, member);
    return copy;
  }),
  fc
    .tuple(fc.constantFrom(...EXTRA_KEYS), fc.oneof(hostileString.map(js), numberText, literal('"node-7"', '"w"')))
    .map(([key, text]) => (m: Member[]) => [...m, [key, text] as Member]),
  fc.tuple(fc.nat(), anyValue).map(
    ([n, value]) =>
      (m: Member[]) =>
        m.map((member, i): Member => (i === n % m.length ? [member[0], js(value)] : member)),
  ),
  fc
    .nat()
    .map(
      (n) => (m: Member[]) =>
        m.map((member, i): Member =>
          i === n % m.length
            ? [member[0].replace(/^./, (c) => `\\u00${c.charCodeAt(0).toString(16)}`), member[1]]
            : member,
        ),
    ),
  fc.array(fc.nat(), { minLength: 2, maxLength: 12 }).map((order) => (m: Member[]) => {
    const copy = [...m];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = order[i % order.length]! % (i + 1);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  }),
);

const space = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: literal(' ', '  ', '\t', ' \t') },
);

const style = fc.tuple(
  fc.oneof(
    { weight: 4, arbitrary: literal('sdk') },
    { weight: 1, arbitrary: literal('compact') },
    { weight: 2, arbitrary: literal('varied') },
  ),
  fc.array(space, { minLength: 8, maxLength: 8 }),
);

/** A line of these members: the SDK's `", "` and `": "` mostly, other whitespace sometimes. */
function render(members: Member[], [kind, spaces]: [string, string[]]): string {
  const [a, b, c, d, e, f, g, h] = spaces as [string, string, string, string, string, string, string, string];
  const colon = kind === 'sdk' ? ': ' : kind === 'compact' ? ':' : `${a}:${b}`;
  const comma = kind === 'sdk' ? ', ' : kind === 'compact' ? ',' : `${c},${d}`;
  const body = members.map(([key, text]) => `"${key}"${colon}${text}`).join(comma);
  return kind === 'varied' ? `${e}{${f}${body}${g}}${h}` : `{${body}}`;
}

/** A plain line, mostly (its texts are plain or near misses, its members unchanged). */
const plainLine: fc.Arbitrary<string> = fc.tuple(plainMembers, style).map(([members, s]) => render(members, s));

/** A scalar line, plain or near one, its members changed now and then. */
const scalarLine: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(plainMembers, sdkMembers),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: fc.array(memberEdit, { minLength: 1, maxLength: 3 }) },
    ),
    style,
  )
  .map(([members, edits, s]) =>
    render(
      edits.reduce((m, edit) => edit(m), members),
      s,
    ),
  );

/** A line changed at one place: a character inserted, removed or replaced (JSON may still read it). */
const mutatedLine: fc.Arbitrary<string> = fc
  .tuple(
    scalarLine,
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'replace'),
    fc.constantFrom(' ', ',', '"', '\\', '}', '{', '0', '.', 'e', '-', 'é', '\u0000', ':', 'x'),
  )
  .map(([line, n, op, c]) => {
    const at = n % (line.length + 1);
    if (op === 'insert') return line.slice(0, at) + c + line.slice(at);
    if (op === 'delete') return line.slice(0, at) + line.slice(at + 1);
    return line.slice(0, at) + c + line.slice(at + 1);
  });

/** Any line of an add_batch body. */
export const bodyLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: scalarLine },
  { weight: 3, arbitrary: mutatedLine },
  { weight: 2, arbitrary: mostlyValidEvent.map((event) => JSON.stringify(event)) },
  {
    weight: 1,
    arbitrary: literal(
      '',
      ' ',
      '\t',
      '\u00a0',
      '\ufeff',
      '[1]',
      '1',
      '"x"',
      'null',
      '{',
      'garbage',
      '{}',
      '{"type": "log", "task": "t1", "msg": "hi"}',
    ),
  },
);

const lineBreak = fc.oneof(
  { weight: 20, arbitrary: literal('\n') },
  { weight: 1, arbitrary: literal('\r\n', '\r', '\n\n') },
);

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return line.trim() === '';
  }
}

/** Lines JSON reads (or blank ones): a body of them is read to its end, not refused at its first malformed line. */
const readableLine = bodyLine.filter(parses);

/** Lines of an SDK's body: mostly plain, some near misses, other events, blank lines. */
const sdkBodyLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: plainLine },
  { weight: 3, arbitrary: scalarLine.filter(parses) },
  { weight: 1, arbitrary: mostlyValidEvent.map((event) => JSON.stringify(event)) },
  { weight: 1, arbitrary: literal('', ' ', '\t', '\u00a0') },
);

const lines = (line: fc.Arbitrary<string>, end: fc.Arbitrary<string>) =>
  fc.array(fc.tuple(line, end), { minLength: 1, maxLength: 60, size: 'medium' });

/**
 * A body of such lines: `\n` between them mostly, `\r\n` or `\r` sometimes, a final break
 * or not; mostly lines JSON reads, so that the request goes on to its end; allow_locked
 * true in every plain line of some.
 */
export const ndjsonBody: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: lines(sdkBodyLine, literal('\n')) },
      { weight: 1, arbitrary: lines(readableLine, lineBreak) },
      { weight: 1, arbitrary: lines(bodyLine, lineBreak) },
    ),
    fc.boolean(),
    fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  )
  .map(([lines, finalBreak, locked]) => {
    let text = lines.map(([line, end], i) => (i < lines.length - 1 || finalBreak ? line + end : line)).join('');
    if (locked) text = text.replace(/("allow_locked"[ \t]*:[ \t]*)false/g, '$1true');
    return Buffer.from(text);
  });

/** The body cut at the given offsets (which may split lines, `\r\n` pairs and characters). */
export function cut(body: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (body.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const p of [...points, body.length]) {
    chunks.push(body.subarray(at, p));
    at = p;
  }
  return chunks;
}

/** What a request runs under: roomy, or tight enough that limits are met mid-body. */
export interface Limits {
  maxLineBytes: number;
  maxEntitiesPerRequest: number;
  inflightBytes: number;
  memoryBytes: number;
  targetMessageBytes: number;
  maxMessageBytes: number;
  workerHeader: string | undefined;
  idempotencyKey: string | undefined;
}

const tightLimits: fc.Arbitrary<Limits> = fc.record({
  maxLineBytes: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1 << 30) },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 600 }) },
  ),
  maxEntitiesPerRequest: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1000) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) },
  ),
  inflightBytes: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1 << 30) },
    { weight: 1, arbitrary: fc.integer({ min: 2048, max: 20_000 }) },
  ),
  memoryBytes: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1 << 30) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 4096 }) },
  ),
  targetMessageBytes: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1 << 20) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 2000 }) },
  ),
  maxMessageBytes: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1 << 20) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }) },
  ),
  workerHeader: fc.constantFrom(undefined, 'node-7', '', 'w"x'),
  idempotencyKey: fc.constantFrom(undefined, undefined, 'key-1'),
});

export const ROOMY: Limits = {
  maxLineBytes: 1 << 30,
  maxEntitiesPerRequest: 1000,
  inflightBytes: 1 << 30,
  memoryBytes: 1 << 30,
  targetMessageBytes: 1 << 20,
  maxMessageBytes: 1 << 20,
  workerHeader: undefined,
  idempotencyKey: undefined,
};

export const limits: fc.Arbitrary<Limits> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .record({
        workerHeader: fc.constantFrom(undefined, 'node-7', '', 'w"x'),
        idempotencyKey: fc.constantFrom(undefined, 'key-1'),
      })
      .map((chosen) => ({ ...ROOMY, ...chosen })),
  },
  { weight: 1, arbitrary: tightLimits },
);

/** Everything a request did that anyone can observe. */
export interface Observed {
  outcome: IngestResult | { error: string; id: unknown; status: unknown };
  messages: Array<{ id: string; partition: number; size: number; payload: string }>;
  /** every amount taken from the in-flight budget, in order */
  held: number[];
  metrics: unknown[];
}

const STATUS_OF: Record<string, EntityStatus> = { L: 'locked', F: 'foreign', U: 'unknown', N: 'new' };

/** The session without its fused paths: every event through add() (lines through JSON.parse). */
export function generalOnly(session: IngestSession): IngestSession {
  return {
    add: (raw) => session.add(raw),
    get count() {
      return session.count;
    },
    drained: () => session.drained?.(),
    commit: () => session.commit(),
    discard: (cause) => session.discard(cause),
  };
}

/**
 * The ingest service under `options`, its stores answering at once (an entity's status
 * by the first letter of its id), recording into `observed` what it publishes, every
 * amount it takes from the in-flight budget and the metrics it tells.
 */
export function observedService(options: Limits, observed: Omit<Observed, 'outcome'>): EventIngestService {
  const { held, metrics, messages } = observed;
  const budget = new InflightBudget(options.inflightBytes);
  const take = budget.take.bind(budget);
  budget.take = (company: string, bytes: number, requestHeld?: number) => {
    held.push(bytes);
    take(company, bytes, requestHeld);
  };
  const settings: IngestSettings = {
    partitions: 4,
    targetMessageBytes: options.targetMessageBytes,
    maxMessageBytes: options.maxMessageBytes,
    plotValidation: true,
    plotCompressionThreshold: 256,
    maxEntitiesPerRequest: options.maxEntitiesPerRequest,
  };
  return new EventIngestService({
    registry: {
      checkAndRegister: async (_c, _u, _at, entities) => entities.map((e) => STATUS_OF[e.id[0] ?? ''] ?? 'ok'),
    },
    publisher: {
      async publishAll(outgoing) {
        for (const message of outgoing) {
          const payload = await message.payload();
          messages.push({
            id: message.id,
            partition: message.partition,
            size: message.size,
            payload: Buffer.from(payload).toString('latin1'),
          });
          message.acknowledged?.();
        }
      },
    } as ConstructorParameters<typeof EventIngestService>[0]['publisher'],
    budget,
    memory: new HeldMemory(options.memoryBytes),
    buffers: new BufferPool(64 * 1024),
    settings,
    metrics: {
      committed: (result: IngestResult) => metrics.push(['committed', result]),
      failed: (offered: number, error: unknown, result?: IngestResult) =>
        metrics.push(['failed', offered, String(error), result]),
      spilled: (bytes: number) => metrics.push(['spilled', bytes]),
      received: (transport: string, bytes: number) => metrics.push(['received', transport, bytes]),
    } as unknown as IngestMetrics,
    now: () => 1_718_000_000_000,
  });
}

/** Runs events.add_batch on the body's chunks; `fused`: whether the session offers its plain scalar path. Counts the lines it took. */
export async function runAddBatch(
  chunks: readonly Buffer[],
  options: Limits,
  fused: boolean,
  taken = { lines: 0 },
): Promise<Observed> {
  const observed: Omit<Observed, 'outcome'> = { messages: [], held: [], metrics: [] };
  const service = observedService(options, observed);
  const ingest: IngestService = {
    begin: (context) => {
      const session = service.begin(context);
      if (!fused) return generalOnly(session);
      const fusedAdd = session.addPlainScalarLine!.bind(session);
      session.addPlainScalarLine = (bytes, start, end) => {
        const stop = fusedAdd(bytes, start, end);
        if (stop >= 0) taken.lines += 1;
        return stop;
      };
      return session;
    },
  };
  const operation = addBatchOperation({ ingest, maxLineBytes: options.maxLineBytes });
  const headers: Record<string, string> = {};
  if (options.workerHeader !== undefined) headers['x-clearml-worker'] = options.workerHeader;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const context = {
    identity: { company: 'c1', user: 'u1' },
    callId: 'test',
    headers,
    signal: new AbortController().signal,
    receivedAt: 1_718_000_000_000,
  } as unknown as CallContext;
  let outcome: Observed['outcome'];
  try {
    outcome = (await operation.handle(
      Readable.from(
        chunks.map((c) => Buffer.from(c)),
        { objectMode: false },
      ),
      {
        contentType: 'application/json-lines',
        search: '',
        readWhole: (body) => readBodyLimited(body, Infinity, () => new Error('unreachable')),
      },
      context,
    )) as IngestResult;
  } catch (error) {
    const e = error as { message?: string; id?: unknown; httpStatus?: unknown };
    outcome = { error: String(e.message ?? error), id: e.id, status: e.httpStatus };
  }
  return { outcome, ...observed };
}
