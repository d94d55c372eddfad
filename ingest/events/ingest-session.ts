/**
 * One add/add_batch request (events.md §2.2): events are checked and
 * encoded as they arrive (`add`), then `commit` applies the request-level
 * rules, checks and registers entities in one Redis call, builds the
 * JetStream messages per partition and publishes them.
 */
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { extractSourceUrls, isValidPlotJson, plotLength } from '../../shared/events/domain/plot-fields.js';
import type { EntityRegistry, EntityStatus } from '../../shared/entities/entity-registry.js';
import { apiError } from '../../shared/errors/error-catalogue.js';
import type { IngestResult, IngestService, IngestSession, IngestRequestContext } from '../../shared/events/ingest-port.js';
import { MAX_RECORDS_PER_MESSAGE } from '../../shared/events/storage-layout.js';
import { frameRecord, partitionOf } from '../../shared/events/wire-format.js';
import { newCallId } from '../../shared/protocol/envelope.js';
import type { EventPublisher, OutgoingMessage } from '../publish/event-publisher.js';
import type { InflightBudget } from '../publish/inflight-budget.js';
import { EventEncoder } from './event-encoder.js';
import { normalizeEvent, type NormalizedEvent } from './event-normalizer.js';
import { EntitySummaryBuilder } from './request-summary.js';

const deflateAsync = promisify(deflate);

export interface IngestSettings {
  partitions: number;
  /** Payload size messages are packed up to (many events per message). */
  targetMessageBytes: number;
  /** Largest payload the server accepts (max_payload less headers room): the bound for one big event. */
  maxMessageBytes: number;
  plotValidation: boolean;
  plotCompressionThreshold: number;
}

export interface IngestDependencies {
  registry: EntityRegistry;
  publisher: EventPublisher;
  budget: InflightBudget;
  settings: IngestSettings;
  now?: () => number;
}

interface EntityState {
  namespace: 't' | 'm';
  id: string;
  allowLocked: boolean;
  allowLockedConflict: boolean;
  /** has an event that passed every check but the entity's */
  hasValid: boolean;
  summary: EntitySummaryBuilder;
  status?: EntityStatus;
}

interface HeldEvent {
  entity?: EntityState;
  earlyError?: string;
  lateError?: string;
  /** the encoded record; a plot gets its record at commit (compression is asynchronous) */
  record?: string;
  plot?: NormalizedEvent;
}

export class EventIngestService implements IngestService {
  constructor(private readonly deps: IngestDependencies) {}

  begin(context: IngestRequestContext): IngestSession {
    return new EventIngestSession(this.deps, context);
  }
}

class EventIngestSession implements IngestSession {
  private readonly held: HeldEvent[] = [];
  private readonly entities = new Map<string, EntityState>();
  private readonly encoder: EventEncoder;
  private readonly receivedAt: number;
  private heldBytes = 0;
  private finished = false;

  constructor(
    private readonly deps: IngestDependencies,
    private readonly context: IngestRequestContext,
  ) {
    this.receivedAt = (deps.now ?? Date.now)();
    this.encoder = new EventEncoder(context.identity.company, this.receivedAt);
  }

  get count(): number {
    return this.held.length;
  }

  add(rawEvent: Record<string, unknown>): void {
    if (this.finished) throw new Error('session already finished');
    this.context.signal?.throwIfAborted();
    const result = normalizeEvent(rawEvent, {
      receivedAt: this.receivedAt,
      defaultWorker: this.context.workerHeader || '<unknown>',
      allowLockedDefault: this.context.allowLockedDefault ?? false,
    });
    const entity = result.entity === undefined ? undefined : this.entityState(result.namespace!, result.entity, result.allowLocked);
    const held: HeldEvent = { entity, earlyError: result.earlyError, lateError: result.lateError };
    const event = result.event;
    if (event !== undefined && entity !== undefined) {
      entity.hasValid = true;
      entity.summary.add(event);
      if (event.type === 'plot') held.plot = event;
      else held.record = event.type === 'log' ? this.encoder.log(event) : this.encoder.point(event);
      const bytes = held.record?.length ?? event.plotStr!.length;
      this.deps.budget.take(bytes);
      this.heldBytes += bytes;
    }
    this.held.push(held);
  }

  private entityState(namespace: 't' | 'm', id: string, allowLocked: boolean): EntityState {
    const key = `${namespace}\u0000${id}`;
    let state = this.entities.get(key);
    if (state === undefined) {
      state = {
        namespace,
        id,
        allowLocked,
        allowLockedConflict: false,
        hasValid: false,
        summary: new EntitySummaryBuilder(this.context.identity.company, namespace, id),
      };
      this.entities.set(key, state);
    } else if (state.allowLocked !== allowLocked) {
      state.allowLockedConflict = true;
    }
    return state;
  }

  discard(): void {
    this.release();
    this.held.length = 0;
  }

  private release(): void {
    if (this.finished) return;
    this.finished = true;
    this.deps.budget.give(this.heldBytes);
    this.heldBytes = 0;
  }

  async commit(): Promise<IngestResult> {
    try {
      if (this.held.length === 0) throw apiError('batch_empty');
      this.checkRequestRules();
      await this.resolveEntities();
      const { result, accepted } = this.outcome();
      if (result.added === 0) {
        throw apiError('events_not_added', undefined, Object.entries(result.errors_info));
      }
      const messages = await this.buildMessages(accepted);
      this.context.signal?.throwIfAborted();
      await this.deps.publisher.publishAll(newCallId(), messages);
      return result;
    } finally {
      this.release();
    }
  }

  /** events.md §1.8, §1.9: request-wide consistency, checked before anything is stored. */
  private checkRequestRules(): void {
    const namespacesById = new Map<string, Set<string>>();
    for (const state of this.entities.values()) {
      const set = namespacesById.get(state.id) ?? new Set();
      set.add(state.namespace);
      namespacesById.set(state.id, set);
    }
    const both = [...namespacesById].filter(([, set]) => set.size > 1).map(([id]) => id);
    if (both.length > 0) {
      throw apiError('validation_error', 'Inconsistent model_event setting in the passed events', [['tasks', both]]);
    }
    for (const state of this.entities.values()) {
      if (state.allowLockedConflict) throw apiError('validation_error', `Inconsistent allow_locked setting in the passed events for ${state.id}`);
    }
  }

  private async resolveEntities(): Promise<void> {
    const states = [...this.entities.values()];
    const statuses = await this.deps.registry
      .checkAndRegister(
        this.context.identity.company,
        this.context.identity.user,
        this.receivedAt,
        states.map((s) => ({ namespace: s.namespace, id: s.id, register: s.hasValid })),
      )
      .catch((error: unknown) => {
        throw apiError('events_not_persisted', undefined, undefined, { cause: error });
      });
    states.forEach((state, i) => (state.status = statuses[i]));
  }

  private entityUsable(state: EntityState): boolean {
    return state.status === 'ok' || state.status === 'new' || state.status === 'unknown' || (state.status === 'locked' && state.allowLocked);
  }

  /** Final reason per event: early checks, then the entity, then the late checks (events.md §1.3 order). */
  private outcome(): { result: IngestResult; accepted: HeldEvent[] } {
    const errorsInfo: Record<string, number> = {};
    const accepted: HeldEvent[] = [];
    let errors = 0;
    for (const held of this.held) {
      let reason = held.earlyError;
      if (reason === undefined && held.entity !== undefined && !this.entityUsable(held.entity)) {
        reason = `${held.entity.namespace === 't' ? 'Invalid task id' : 'Invalid model id'} ${held.entity.id}`;
      }
      reason ??= held.lateError;
      if (reason === undefined) {
        accepted.push(held);
      } else {
        errors += 1;
        errorsInfo[reason] = (errorsInfo[reason] ?? 0) + 1;
      }
    }
    return { result: { added: accepted.length, errors, errors_info: errorsInfo }, accepted };
  }

  /** Records grouped by partition in line order, each entity's summary after its events, packed under the size limits. */
  private async buildMessages(accepted: HeldEvent[]): Promise<OutgoingMessage[]> {
    const plotRecords = await this.encodePlots(accepted);
    const byPartition = new Map<number, string[]>();
    const partitionOfState = (state: EntityState) => partitionOf(state.namespace, state.id, this.deps.settings.partitions);
    for (const held of accepted) {
      const partition = partitionOfState(held.entity!);
      let records = byPartition.get(partition);
      if (records === undefined) byPartition.set(partition, (records = []));
      records.push(held.record ?? plotRecords.get(held)!);
    }
    for (const state of this.entities.values()) {
      if (!state.hasValid || !this.entityUsable(state)) continue;
      const summary = state.summary.build(this.context.identity.user, this.receivedAt);
      byPartition.get(partitionOfState(state))?.push(frameRecord('R', JSON.stringify(summary)));
    }
    const messages: OutgoingMessage[] = [];
    for (const [partition, records] of byPartition) this.packRecords(partition, records, messages);
    return messages;
  }

  /**
   * Packs records into payloads of about targetMessageBytes, encoding each
   * straight into the message buffer (no per-record measuring, joining or
   * copying: this runs for every event).
   */
  private packRecords(partition: number, records: string[], out: OutgoingMessage[]): void {
    const { targetMessageBytes: target, maxMessageBytes: limit } = this.deps.settings;
    let buffer = Buffer.allocUnsafe(target);
    let offset = 0;
    let count = 0;
    const flush = () => {
      if (count > 0) out.push({ partition, payload: buffer.subarray(0, offset) });
      buffer = Buffer.allocUnsafe(target);
      offset = 0;
      count = 0;
    };
    for (const record of records) {
      // A UTF-16 code unit takes at most 3 UTF-8 bytes.
      const worst = record.length * 3;
      if (count > 0 && (offset + worst > target || count >= MAX_RECORDS_PER_MESSAGE)) flush();
      if (worst > target) {
        const bytes = Buffer.from(record, 'utf8');
        if (bytes.length > limit) throw apiError('body_too_large', `an event of ${bytes.length} bytes exceeds the event log's message limit of ${limit} bytes`);
        if (bytes.length > target) {
          out.push({ partition, payload: bytes });
          continue;
        }
        offset += bytes.copy(buffer, offset);
      } else {
        offset += buffer.write(record, offset, 'utf8');
      }
      count += 1;
    }
    flush();
  }

  private async encodePlots(accepted: HeldEvent[]): Promise<Map<HeldEvent, string>> {
    const { plotValidation, plotCompressionThreshold } = this.deps.settings;
    const out = new Map<HeldEvent, string>();
    await Promise.all(
      accepted
        .filter((held) => held.plot !== undefined)
        .map(async (held) => {
          const event = held.plot!;
          const text = event.plotStr ?? '';
          const compress = plotCompressionThreshold > 0 && text.length >= plotCompressionThreshold;
          const stored = compress ? `z${(await deflateAsync(Buffer.from(text, 'utf8'))).toString('base64')}` : `p${text}`;
          out.set(
            held,
            this.encoder.plotPoint(event, {
              stored,
              length: plotLength(text),
              sourceUrls: extractSourceUrls(text),
              valid: plotValidation && !event.skipValidation ? isValidPlotJson(text) : undefined,
            }),
          );
        }),
    );
    return out;
  }
}

