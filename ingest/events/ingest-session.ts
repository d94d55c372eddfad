/**
 * One add/add_batch request (events.md §2.2): events are checked and
 * encoded as they arrive (`add`), then `commit` applies the request-level
 * rules, checks and registers entities in one Redis call, builds the
 * JetStream messages per partition and publishes them.
 */
import type { EntityChecks } from './companion-registry.js';
import { withCallerCredential } from '../../shared/companion/caller-credential.js';
import { apiError, isApiError } from '../../shared/errors/error-catalogue.js';
import { isTransientStoreError } from '../../shared/stores/store-errors.js';
import type { IngestResult, IngestService, IngestSession, IngestRequestContext } from './ingest-port.js';
import { frameRecord, partitionOf, type EntitySummary } from '../../shared/events/wire-format.js';
import { newCallId } from '../../shared/protocol/envelope.js';
import type { EventPublisher, OutgoingMessage } from '../publish/event-publisher.js';
import type { HeldMemory } from '../publish/held-memory.js';
import type { InflightBudget } from '../publish/inflight-budget.js';
import type { WriterLagGate } from '../publish/writer-lag-gate.js';
import { EventEncoder } from './event-encoder.js';
import type { IngestMetrics } from './ingest-metrics.js';
import { eventTooLarge } from './event-limits.js';
import { checkedEvent, normalizeEvent, UNKNOWN_WORKER, type NormalizedEvent } from './event-normalizer.js';
import { needsCompression, plotFields, storedPlot } from './plot-storage.js';
import type { BufferPool } from './buffer-pool.js';
import { RecordSink } from './record-sink.js';
import { packByPartition, type EntityMessage } from './partition-packer.js';
import { SpillFile } from './spill-file.js';
import {
  assertEntityRoom,
  entityUsable,
  notAddedError,
  requestRuleError,
  settleOutcome,
  type EntityTally,
  type Tally,
} from './request-rules.js';
import { EntitySummaryBuilder, type ScalarSeries } from './request-summary.js';
import { AsciiSpanMap } from './ascii-span-map.js';
import { ByteLiteral } from './byte-literal.js';
import { PlainScalarLine, readPlainScalarLine } from './plain-scalar-line.js';
import { PLAIN_EVENT_TEXTS_BYTES, readPlainScalarEvent } from './plain-scalar-event.js';
import { PlainScalarRecord } from './plain-scalar-record.js';

export interface IngestSettings {
  partitions: number;
  /** Payload size messages are packed up to (many events per message). */
  targetMessageBytes: number;
  /** Largest payload the server accepts (max_payload less headers room): the bound for one big event. */
  maxMessageBytes: number;
  plotValidation: boolean;
  plotCompressionThreshold: number;
  /** Distinct entities one request may name (INGEST_MAX_ENTITIES_PER_REQUEST). */
  maxEntitiesPerRequest: number;
  /** Where records beyond the process's memory go (INGEST_SPILL_DIR; the system's temporary directory when absent). */
  spillDir?: string;
}

/**
 * Memory a request holds beside its encoded records, counted against the
 * in-flight budget (measured with heap snapshots, rounded up): an entity's
 * state (maps, summary builder, record sink, cached tag text); a distinct
 * rejection reason (map slot and tally, plus its text at two bytes a code
 * unit); a plot waiting for compression (its event, plus its text).
 */
const ENTITY_BYTES = 2048;
const REASON_BYTES = 160;
const DEFERRED_PLOT_BYTES = 400;

/** The cause of a discard without one: the client went away (or the call was cancelled). */
const ABORTED = new DOMException('request abandoned', 'AbortError');

export interface IngestDependencies {
  registry: EntityChecks;
  publisher: EventPublisher;
  budget: InflightBudget;
  /** Refuses the heaviest senders while the writers are behind (INGEST_MAX_WRITER_LAG_MS); none: never. */
  lagGate?: WriterLagGate;
  /** Memory the requests' records may take before they spill to disk (INGEST_MAX_MEMORY_BYTES); unbounded when absent. */
  memory?: HeldMemory;
  /** Message buffers of finished requests, used again. */
  buffers?: BufferPool;
  settings: IngestSettings;
  /** Counts each request's accepted and refused events (once per request, not per event). */
  metrics?: IngestMetrics;
  now?: () => number;
}

interface EntityState extends EntityTally {
  partition: number;
  summary: EntitySummaryBuilder;
  records: RecordSink;
  /** the E record of the entity's messages, made at its first J record */
  header?: string;
  /** plots waiting for asynchronous compression, with their line index; once one waits, later plots wait too (order) */
  deferredPlots: Array<{ event: NormalizedEvent; index: number }>;
  /** the scalar series plain lines or events named, found by their bytes */
  plainSeries?: AsciiSpanMap<PlainSeries>;
}

/** A scalar series of an entity as the fused path of plain lines and events keeps it. */
interface PlainSeries {
  /** its J records' bytes up to the value (EventEncoder.compactScalarHead) */
  head: ByteLiteral;
  summary: ScalarSeries;
}

/** What the fused path of plain scalar lines and events reuses from one to the next. */
class PlainLines {
  readonly line = new PlainScalarLine();
  /** a plain event's number texts (plain-scalar-event.ts) */
  readonly texts = Buffer.alloc(PLAIN_EVENT_TEXTS_BYTES);
  readonly record = new PlainScalarRecord();
  /** task entities plain lines or events named, found by their bytes */
  readonly entities = new AsciiSpanMap<EntityState>();
}

/** Counts a reason; answers the bytes a new one takes. */
function tally(map: Map<string, Tally>, reason: string, index: number): number {
  const existing = map.get(reason);
  if (existing !== undefined) {
    existing.count += 1;
    return 0;
  }
  map.set(reason, { count: 1, first: index });
  return REASON_BYTES + 2 * reason.length;
}

/** An entity named again: with another allow_locked, the request is refused (request-rules.ts). */
function noteAllowLocked(state: EntityState, allowLocked: boolean): void {
  if (state.allowLocked !== allowLocked) state.allowLockedConflict = true;
}

export class EventIngestService implements IngestService {
  constructor(private readonly deps: IngestDependencies) {}

  begin(context: IngestRequestContext): IngestSession {
    return new EventIngestSession(this.deps, context);
  }
}

class EventIngestSession implements IngestSession {
  /** In the order the request first named them (message ids count on it). */
  private readonly entities: EntityState[] = [];
  /** The same states by namespace and id: found per event without making a key string. */
  private readonly byNamespace = { t: new Map<string, EntityState>(), m: new Map<string, EntityState>() };
  /** early-check rejections (final whatever the entity) */
  private readonly early = new Map<string, Tally>();
  private readonly encoder: EventEncoder;
  private readonly receivedAt: number;
  private offered = 0;
  private heldBytes = 0;
  private spill?: SpillFile;
  private finished = false;
  private plain?: PlainLines;

  constructor(
    private readonly deps: IngestDependencies,
    private readonly context: IngestRequestContext,
  ) {
    this.receivedAt = (deps.now ?? Date.now)();
    this.encoder = new EventEncoder(context.identity.company, this.receivedAt, context.workerHeader || UNKNOWN_WORKER);
  }

  get count(): number {
    return this.offered;
  }

  add(rawEvent: Record<string, unknown>): void {
    const index = this.nextIndex();
    const result = normalizeEvent(rawEvent, {
      receivedAt: this.receivedAt,
      defaultWorker: this.context.workerHeader,
      allowLockedDefault: this.context.allowLockedDefault ?? false,
    });
    if (result.earlyError !== undefined) {
      this.hold(tally(this.early, result.earlyError, index));
      return;
    }
    const entity = this.entityState(result.namespace!, result.entity!, result.allowLocked);
    if (entity.checked++ === 0) entity.firstChecked = index;
    if (result.lateError !== undefined) {
      this.hold(tally(entity.late, result.lateError, index));
      return;
    }
    this.accept(entity, result.event!, index);
  }

  /**
   * The fused path (docs/ingest.md "The plain scalar line"): a plain line's event is known
   * valid from its bytes, so it is counted, encoded and summarised as `add` would, without
   * the objects and strings `add` makes on the way. The first event of a series in an
   * entity goes through `accept` as `add`'s would, which sets up what later ones reuse.
   */
  addPlainScalarLine(bytes: Buffer, start: number, end: number): number {
    const plain = (this.plain ??= new PlainLines());
    const stop = readPlainScalarLine(bytes, start, end, plain.line);
    if (stop < 0) return -1;
    this.addPlain(plain, bytes, bytes);
    return stop;
  }

  /** The same fused path for a plain event of a StreamEvents chunk (docs/ingest.md "The plain scalar event"). */
  addPlainScalarEvent(bytes: Buffer, start: number, end: number): boolean {
    const plain = (this.plain ??= new PlainLines());
    if (!readPlainScalarEvent(bytes, start, end, plain.line, plain.texts, this.receivedAt)) return false;
    this.addPlain(plain, bytes, plain.texts);
    return true;
  }

  /** The plain event `plain.line` holds: its names in `bytes`, its numbers' texts in `texts`. */
  private addPlain(plain: PlainLines, bytes: Buffer, texts: Buffer): void {
    const { line } = plain;
    const index = this.nextIndex();
    const allowLocked = line.allowLocked < 0 ? (this.context.allowLockedDefault ?? false) : line.allowLocked === 1;
    let entity = plain.entities.get(bytes, line.taskStart, line.taskEnd, 0, 0, line.taskHash);
    if (entity === undefined) {
      entity = this.entityState('t', bytes.toString('latin1', line.taskStart, line.taskEnd), allowLocked);
      plain.entities.set(entity.id, '', line.taskHash, entity);
    } else noteAllowLocked(entity, allowLocked);
    if (entity.checked++ === 0) entity.firstChecked = index;
    const series = entity.plainSeries?.get(
      bytes,
      line.metricStart,
      line.metricEnd,
      line.variantStart,
      line.variantEnd,
      line.seriesHash,
    );
    if (series === undefined) {
      this.acceptFirstPlain(entity, bytes, line, allowLocked, index);
      return;
    }
    plain.record.set(texts, line, series.head);
    const grown = entity.records.appendAscii(plain.record, entity.header!);
    if (grown === undefined) {
      this.hold(tally(entity.late, eventTooLarge(this.deps.settings.maxMessageBytes), index));
      return;
    }
    entity.valid += 1;
    entity.summary.addToScalarSeries(series.summary, line);
    this.hold(grown);
  }

  /** A plain line's or event's event as normalizeEvent makes it, through `accept`; then its series is known by its bytes. */
  private acceptFirstPlain(
    entity: EntityState,
    bytes: Buffer,
    line: PlainScalarLine,
    allowLocked: boolean,
    index: number,
  ): void {
    const metric = bytes.toString('latin1', line.metricStart, line.metricEnd);
    const variant = bytes.toString('latin1', line.variantStart, line.variantEnd);
    const event = checkedEvent(
      'training_stats_scalar',
      't',
      entity.id,
      allowLocked,
      line.iter,
      line.timestamp,
      metric,
      variant,
      this.context.workerHeader || UNKNOWN_WORKER,
    );
    event.value = line.value;
    this.accept(entity, event, index);
    const summary = entity.summary.scalarSeries(metric, variant);
    // Not stored (larger than a message): the next event of the series takes this way again.
    if (summary === undefined || entity.header === undefined) return;
    const head = new ByteLiteral(this.encoder.compactScalarHead('t', metric, variant));
    (entity.plainSeries ??= new AsciiSpanMap()).set(metric, variant, line.seriesHash, { head, summary });
  }

  /** The index of the next event offered; throws when the session is over or the request abandoned. */
  private nextIndex(): number {
    if (this.finished) throw new Error('session already finished');
    // Per event: a property read, not a call into the AbortSignal's internals.
    if (this.context.signal?.aborted) this.context.signal.throwIfAborted();
    return this.offered++;
  }

  /** A valid event: held for compression (plots), or encoded and summarised. */
  private accept(entity: EntityState, event: NormalizedEvent, index: number): void {
    if (event.type === 'plot' && (entity.deferredPlots.length > 0 || needsCompression(event, this.deps.settings))) {
      entity.deferredPlots.push({ event, index });
      entity.valid += 1;
      this.hold(event.plotStr!.length + DEFERRED_PLOT_BYTES);
      return;
    }
    const grown = this.append(entity, event);
    if (grown === undefined) {
      this.hold(tally(entity.late, eventTooLarge(this.deps.settings.maxMessageBytes), index));
      return;
    }
    entity.valid += 1;
    this.hold(grown + entity.summary.add(event));
  }

  private append(entity: EntityState, event: NormalizedEvent): number | undefined {
    if (event.type === 'log') return entity.records.append(this.encoder.log(event));
    if (event.type === 'plot')
      return entity.records.append(
        this.encoder.plotPoint(event, plotFields(event, `p${event.plotStr}`, this.deps.settings)),
      );
    if (event.type === 'training_stats_scalar') {
      const rest = this.encoder.compactScalarRest(event);
      if (rest !== undefined)
        return entity.records.appendScalar(
          this.encoder.compactScalarHead(event.namespace, event.metric, event.variant),
          rest,
          (entity.header ??= this.encoder.header(entity.id)),
        );
    }
    const compact = this.encoder.compactPoint(event);
    if (compact === undefined) return entity.records.append(this.encoder.point(event));
    return entity.records.append(compact, (entity.header ??= this.encoder.header(entity.id)));
  }

  drained(): Promise<void> | undefined {
    return this.spill?.backlog();
  }

  /**
   * Counts bytes the request holds against the process's in-flight budget:
   * 429 when other requests hold it (or its company's other requests hold
   * the company's share), 413 when this request alone needs more than the
   * whole budget (retrying could never succeed).
   */
  private hold(bytes: number): void {
    if (bytes === 0) return;
    const { budget } = this.deps;
    // Asked once, before the request holds anything: a request let in is stored whole.
    if (this.heldBytes === 0) this.deps.lagGate?.admit(this.context.identity.company);
    if (this.heldBytes + bytes > budget.limit) {
      throw apiError(
        'body_too_large',
        `the request needs more than INGEST_MAX_INFLIGHT_BYTES (${budget.limit} bytes) in memory`,
      );
    }
    budget.take(this.context.identity.company, bytes, this.heldBytes);
    this.heldBytes += bytes;
  }

  private entityState(namespace: 't' | 'm', id: string, allowLocked: boolean): EntityState {
    let state = this.byNamespace[namespace].get(id);
    if (state === undefined) {
      const { partitions, targetMessageBytes, maxMessageBytes, maxEntitiesPerRequest } = this.deps.settings;
      // Refused at the first entity beyond the cap, while the body may still be arriving.
      assertEntityRoom(this.entities.length, maxEntitiesPerRequest);
      this.hold(ENTITY_BYTES);
      state = {
        namespace,
        id,
        partition: partitionOf(namespace, id, partitions),
        allowLocked,
        allowLockedConflict: false,
        valid: 0,
        checked: 0,
        firstChecked: 0,
        late: new Map(),
        summary: new EntitySummaryBuilder(this.context.identity.company, namespace, id),
        records: new RecordSink(
          targetMessageBytes,
          maxMessageBytes,
          this.deps.memory && {
            memory: this.deps.memory,
            buffers: this.deps.buffers,
            spill: () => (this.spill ??= new SpillFile(this.deps.settings.spillDir)),
          },
        ),
        deferredPlots: [],
      };
      this.entities.push(state);
      this.byNamespace[namespace].set(id, state);
    } else noteAllowLocked(state, allowLocked);
    return state;
  }

  discard(cause?: unknown): void {
    if (!this.finished) this.deps.metrics?.failed(this.offered, cause ?? ABORTED);
    this.release(true);
    this.entities.length = 0;
    this.byNamespace.t.clear();
    this.byNamespace.m.clear();
  }

  /** `reusable`: nothing still reads the request's buffers (nothing was published, or every message was acknowledged). */
  private release(reusable: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.deps.budget.give(this.context.identity.company, this.heldBytes);
    this.heldBytes = 0;
    for (const state of this.entities) state.records.release(reusable);
    if (this.spill !== undefined) {
      this.deps.metrics?.spilled(this.spill.bytes);
      void this.spill.close();
    }
  }

  async commit(): Promise<IngestResult> {
    let result: IngestResult | undefined;
    let reusable = true;
    try {
      if (this.offered === 0) throw apiError('batch_empty');
      const ruleError = requestRuleError(this.entities);
      if (ruleError !== undefined) throw ruleError;
      await this.encodeDeferredPlots();
      this.context.signal?.throwIfAborted();
      await this.resolveEntities();
      result = settleOutcome(this.early, this.entities);
      const notAdded = notAddedError(result);
      if (notAdded !== undefined) throw notAdded;
      const messages = this.buildMessages();
      this.context.signal?.throwIfAborted();
      reusable = false;
      await this.deps.publisher.publishAll(messages);
      reusable = true;
      this.deps.lagGate?.count(this.context.identity.company, publishedBytes(messages));
      this.deps.metrics?.committed(result);
      return result;
    } catch (error) {
      this.deps.metrics?.failed(this.offered, error, result);
      throw error;
    } finally {
      this.release(reusable);
    }
  }

  private async resolveEntities(): Promise<void> {
    const states = this.entities;
    const statuses = await withCallerCredential(this.context.credential, () =>
      this.deps.registry.checkAndRegister(
        this.context.identity.company,
        this.context.identity.user,
        this.receivedAt,
        states.map((s) => ({ namespace: s.namespace, id: s.id, register: s.valid > 0 })),
      ),
    ).catch((error: unknown) => {
      // Only what a retry can fix is a 503: the SDK retries it forever.
      // An answer already decided (companion mode's 503 for an unreachable ClearML server) stays as it is.
      throw !isApiError(error) && isTransientStoreError(error)
        ? apiError('events_not_persisted', undefined, undefined, { cause: error })
        : error;
    });
    states.forEach((state, i) => (state.status = statuses[i]));
  }

  /**
   * Each usable entity's records in line order, then its summary, packed
   * per partition (partition-packer.ts). Message ids name the request (its
   * fingerprint: a re-send of it gets the same ids, and JetStream drops the
   * messages it already has), the partition and the message's place among
   * the partition's. A request known by its bytes adds the message's record
   * count: a re-send packed differently (another ingest's settings) gets
   * other ids, so it can be stored twice but never lose an event. A request
   * the client named by a key is that request however it is encoded: the
   * key decides.
   */
  private buildMessages(): OutgoingMessage[] {
    const usable = this.entities.filter((state) => state.valid > 0 && entityUsable(state));
    const { fingerprint } = this.context;
    const request = fingerprint?.idFor(this.context.identity.company) ?? newCallId();
    const packing = (records: number) => (fingerprint?.clientKeyed ? '' : `.${records}`);
    const entityMessages: EntityMessage[] = [];
    for (const state of usable) {
      this.appendSummary(state.records, state.summary.build(this.context.identity.user, this.receivedAt));
      for (const message of state.records.messages()) entityMessages.push({ ...message, partition: state.partition });
    }
    return packByPartition(entityMessages, this.deps.settings.targetMessageBytes, this.deps.buffers).map(
      ({ partition, n, payload, size, records, acknowledged }) => ({
        partition,
        payload,
        size,
        acknowledged,
        // `p`: never the id of a message of an ingest before packing (`<request>.<entity>.<n>`).
        id: `${request}.p${partition}.${n}${packing(records)}`,
      }),
    );
  }

  /**
   * An entity's summary as one R record, or as several when it exceeds a
   * message (thousands of long metric names): each part carries a share of
   * the series, and the writer applies every part (each has its own arrival
   * seq; the record fields they repeat are idempotent).
   */
  private appendSummary(records: RecordSink, summary: EntitySummary): void {
    const grown = records.append(frameRecord('R', JSON.stringify(summary)));
    if (grown !== undefined) {
      this.hold(grown);
      return;
    }
    const { scalars, listing } = summary;
    const images = summary.images ?? [];
    // One series is at most ~100 KB of JSON (names and label are capped; a variant's images are bounded), far below a message.
    if (scalars.length + listing.length + images.length <= 1)
      throw new Error(`a summary of one series exceeds the message limit`);
    const half = (n: number) => Math.ceil(n / 2);
    const [s, l, i] =
      scalars.length > 1 || listing.length > 1 || images.length > 1
        ? [half(scalars.length), half(listing.length), half(images.length)]
        : scalars.length === 1
          ? [1, 0, 0]
          : [0, listing.length, 0];
    this.appendSummary(records, {
      ...summary,
      scalars: scalars.slice(0, s),
      listing: listing.slice(0, l),
      images: images.slice(0, i),
    });
    this.appendSummary(records, {
      ...summary,
      scalars: scalars.slice(s),
      listing: listing.slice(l),
      images: images.slice(i),
    });
  }

  /**
   * Compresses the deferred plots concurrently, then appends them in line
   * order. Before the entity check: a plot whose stored form exceeds one
   * message is rejected like any event (and registers nothing).
   */
  private async encodeDeferredPlots(): Promise<void> {
    const waiting = this.entities.filter((state) => state.deferredPlots.length > 0);
    const stored = await Promise.all(
      waiting.map((state) =>
        Promise.all(state.deferredPlots.map(({ event }) => storedPlot(event, this.deps.settings))),
      ),
    );
    waiting.forEach((state, s) => {
      state.deferredPlots.forEach(({ event, index }, i) => {
        const grown = state.records.append(
          this.encoder.plotPoint(event, plotFields(event, stored[s]![i]!, this.deps.settings)),
        );
        if (grown === undefined) {
          state.valid -= 1;
          this.hold(tally(state.late, eventTooLarge(this.deps.settings.maxMessageBytes), index));
        } else {
          this.hold(grown + state.summary.add(event));
        }
      });
      state.deferredPlots = [];
    });
  }
}

function publishedBytes(messages: readonly OutgoingMessage[]): number {
  let bytes = 0;
  for (const message of messages) bytes += message.size;
  return bytes;
}
