/**
 * Normalised event → its wire record (shared/events/wire-format.ts). This
 * is where InfluxDB line protocol is formatted, once per event: writers only
 * splice in the arrival sequence. Tag strings are cached per entity and per
 * metric/variant because SDK batches repeat a handful of them.
 */
import {
  MEASUREMENT,
  PLOT_BODY_MEASUREMENT,
  plotBodyBucket,
  encodeTagValue,
  escapeTagValue,
  iterTimeText,
  quoteFieldString,
} from '../../shared/events/storage-layout.js';
import { NestedKeyMap } from './nested-key-map.js';
import { frameRecord, headerRecordBody, logRecordBody } from '../../shared/events/wire-format.js';
import type { NormalizedEvent } from './event-normalizer.js';

const tag = (value: string) => escapeTagValue(encodeTagValue(value));

/** Stored form of plot fields computed at ingest (events.md §1.7). */
export interface PlotFields {
  stored: string;
  length: number;
  sourceUrls?: string[];
  valid?: boolean;
}

export class EventEncoder {
  private readonly entityTags = new Map<string, string>();
  private readonly seriesTags = { t: new NestedKeyMap<string>(), m: new NestedKeyMap<string>() };
  private readonly scalarHeads = { t: new NestedKeyMap<string>(), m: new NestedKeyMap<string>() };
  private readonly workerFields = new Map<string, string>();
  private readonly companyTag: string;
  readonly receivedAtIso: string;
  private readonly receivedAtField: string;
  /** `,at=..i,w=".."`: the fields an E record holds for the J records after it. */
  private readonly sharedFields: string;

  constructor(
    readonly company: string,
    readonly receivedAt: number,
    /** The worker of events that name none (the request's): its events' points go out as J records. */
    private readonly defaultWorker?: string,
  ) {
    this.companyTag = tag(company);
    this.receivedAtIso = new Date(receivedAt).toISOString();
    this.receivedAtField = `,at=${receivedAt}i`;
    this.sharedFields = `${this.receivedAtField},w=${quoteFieldString(defaultWorker ?? '')}`;
  }

  /** The E record a message of the entity's J records starts with. */
  header(entity: string): string {
    return frameRecord('E', headerRecordBody(this.entityPart(entity), this.sharedFields));
  }

  /** `,c=..,e=..` for an entity (tags in key order c, e, k, m, n, v: InfluxDB's own order). */
  private entityPart(entity: string): string {
    let part = this.entityTags.get(entity);
    if (part === undefined) {
      part = `,c=${this.companyTag},e=${tag(entity)}`;
      this.entityTags.set(entity, part);
    }
    return part;
  }

  /** `,m=..,n=..,v=..` for a metric/variant of a namespace. */
  private seriesPart(namespace: 't' | 'm', metric: string, variant: string): string {
    const cache = this.seriesTags[namespace];
    let part = cache.get(metric, variant);
    if (part === undefined) {
      part = `,m=${tag(metric)},n=${namespace},v=${tag(variant)}`;
      cache.set(metric, variant, part);
    }
    return part;
  }

  private commonFields(event: NormalizedEvent): string {
    let worker = this.workerFields.get(event.worker);
    if (worker === undefined) this.workerFields.set(event.worker, (worker = `,w=${quoteFieldString(event.worker)}`));
    return `,ts=${event.timestamp}i${this.receivedAtField}${worker}`;
  }

  /** The I record of a scalar, vector or debug image event: self-contained. */
  point(event: NormalizedEvent): string {
    return frameRecord('I', this.pointBody(event, this.entityPart(event.entity), this.commonFields(event)));
  }

  /**
   * The J record of a scalar, vector or debug image event: the point without
   * what the message's E record (`header`) holds; undefined when the event
   * names a worker other than the request's, which an I record carries.
   */
  compactPoint(event: NormalizedEvent): string | undefined {
    if (event.worker !== this.defaultWorker) return undefined;
    return frameRecord('J', this.pointBody(event, '', `,ts=${event.timestamp}i`));
  }

  /**
   * A scalar's J record body up to its value, `scalar,m=..,n=..,v=.. y=`: the series head
   * an H record defines for the K records after it (wire-format.ts). One string per series,
   * so that a message's heads are told apart by a hash computed once.
   */
  compactScalarHead(namespace: 't' | 'm', metric: string, variant: string): string {
    const cache = this.scalarHeads[namespace];
    let head = cache.get(metric, variant);
    if (head === undefined) {
      head = `${MEASUREMENT.training_stats_scalar}${this.seriesPart(namespace, metric, variant)} y=`;
      cache.set(metric, variant, head);
    }
    return head;
  }

  /**
   * A scalar's J record body after its head (`<value>,ts=<timestamp>i <iteration>`), what
   * its K record carries; undefined when it names a worker other than the request's.
   */
  compactScalarRest(event: NormalizedEvent): string | undefined {
    if (event.worker !== this.defaultWorker) return undefined;
    return `${formatFloat(event.value!)},ts=${event.timestamp}i ${iterTimeText(event.iter)}`;
  }

  /** `entityTags`: `,c=..,e=..` or empty (J); `fields`: the fields after the type's own, starting with a comma. */
  private pointBody(event: NormalizedEvent, entityTags: string, fields: string): string {
    const time = iterTimeText(event.iter);
    switch (event.type) {
      case 'training_stats_scalar':
        return `${MEASUREMENT.training_stats_scalar}${entityTags}${this.seriesPart(event.namespace, event.metric, event.variant)} y=${formatFloat(event.value!)}${fields} ${time}`;
      case 'training_stats_vector':
        return `${MEASUREMENT.training_stats_vector}${entityTags}${this.seriesPart(event.namespace, event.metric, event.variant)} y=${quoteFieldString(JSON.stringify(event.values))}${fields} ${time}`;
      case 'training_debug_image': {
        const keyTag = event.key === undefined ? '' : `,k=${tag(event.key)}`;
        const url = event.url === undefined ? '' : `u=${quoteFieldString(event.url)},`;
        // `u` may be absent, so the first field is `ts`; `fields` starts with a comma.
        return `${MEASUREMENT.training_debug_image}${entityTags}${keyTag}${this.seriesPart(event.namespace, event.metric, event.variant)} ${url}${fields.slice(1)} ${time}`;
      }
      default:
        throw new Error(`no point form for ${event.type}`);
    }
  }

  /**
   * The I record of a plot, once its stored form is known (compression is
   * asynchronous): two lines, the body's `plot_body` point in its bucket's
   * series, then the `plot` point of the other fields (the writer gives the
   * last line its `q`). One record keeps them in one message and one write.
   */
  plotPoint(event: NormalizedEvent, plot: PlotFields): string {
    // Always written (empty when none): an overwritten point keeps fields the new one lacks.
    const src = `,src=${plot.sourceUrls === undefined ? '""' : quoteFieldString(JSON.stringify(plot.sourceUrls))}`;
    const valid = plot.valid === undefined ? '' : `,valid=${plot.valid}`;
    const time = iterTimeText(event.iter);
    const tags = `${this.entityPart(event.entity)}${this.seriesPart(event.namespace, event.metric, event.variant)}`;
    // `b` sorts before `c`: tags stay in InfluxDB's key order.
    return frameRecord(
      'I',
      `${PLOT_BODY_MEASUREMENT},b=${plotBodyBucket(event.iter)}${tags} p=${quoteFieldString(plot.stored)} ${time}\n` +
        `${MEASUREMENT.plot}${tags} len=${plot.length}i${src}${valid}${this.commonFields(event)} ${time}`,
    );
  }

  /** The L record of a log event: the stored event (without type and task) serialised once. */
  log(event: NormalizedEvent): string {
    const stored: Record<string, unknown> = {
      timestamp: event.timestamp,
      metric: event.metric,
      variant: event.variant,
      worker: event.worker,
      model_event: false,
      '@timestamp': this.receivedAtIso,
    };
    if (event.iter !== undefined) stored.iter = event.iter;
    if (event.level !== undefined) stored.level = event.level;
    if (event.msg !== undefined) stored.msg = event.msg;
    return frameRecord('L', logRecordBody(this.company, event.entity, event.timestamp, JSON.stringify(stored)));
  }
}

/** A float in line protocol: a plain number without the `i` suffix (integers stay valid floats). */
function formatFloat(value: number): string {
  return String(value);
}
