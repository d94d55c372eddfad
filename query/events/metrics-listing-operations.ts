/**
 * Listing metrics (events.md §3): answered from the metric listing sets the
 * writer maintains, one SMEMBERS per entity, never a scan of events.
 */
import { compareCodePoints } from '../../shared/events/domain/code-point-order.js';
import { defineOperation } from '../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../query-deps.js';
import { distinct, eventTypeField, withTasksList, type EventType } from './common/event-read-fields.js';
import { namespaceOf, type Namespace } from './store/entity-access.js';
import { MetricListings, type ListingEntry } from './store/metric-listing.js';

/** metric -> variants, both ascending by name. */
export function metricVariantsMap(entries: Iterable<ListingEntry>): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const e of entries) {
    let variants = sets.get(e.metric);
    if (!variants) sets.set(e.metric, (variants = new Set()));
    variants.add(e.variant);
  }
  return new Map([...sets.keys()].sort(compareCodePoints).map((metric) => [metric, [...sets.get(metric)!].sort(compareCodePoints)]));
}

const ofType = (type: EventType | undefined) => (e: ListingEntry) => type === undefined || e.type === type;

export function metricsListingOperations(deps: QueryDeps) {
  /** The listings of `ids` once every requested entity is known readable; both read at once (one Redis round trip). */
  const readableListings = async (company: string, namespace: Namespace, requested: readonly string[], ids: readonly string[]) => {
    const [, perEntity] = await Promise.all([
      deps.entities.requireReadable(company, namespace, requested),
      new MetricListings(deps.redis, deps.keyPrefix).of(company, namespace, ids),
    ]);
    return perEntity;
  };

  const getTaskMetrics = defineOperation({
    name: 'events.get_task_metrics',
    minVersion: '1.0',
    request: withTasksList({ event_type: eventTypeField(), model_events: bool({ default: false }) }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const ids = distinct(request.tasks);
      const perEntity = await readableListings(context.identity.company, namespace, request.tasks, ids);
      return {
        metrics: ids.map((task, i) => ({
          task,
          // Single values and events without an iteration do not count here (events.md §1.6).
          metrics: distinct(perEntity[i]!.filter((e) => e.regular && ofType(request.event_type)(e)).map((e) => e.metric)).sort(compareCodePoints),
        })),
      };
    },
  });

  const getMultiTaskMetrics = defineOperation({
    name: 'events.get_multi_task_metrics',
    minVersion: '1.0',
    request: withTasksList({ event_type: eventTypeField(), model_events: bool({ default: false }) }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const perEntity = await readableListings(context.identity.company, namespace, request.tasks, distinct(request.tasks));
      const union = metricVariantsMap(perEntity.flat().filter(ofType(request.event_type)));
      return { metrics: [...union].map(([metric, variants]) => ({ metric, variants })) };
    },
  });

  const metricsAndVariants = (name: string, type: EventType) =>
    defineOperation({
      name,
      minVersion: '1.0',
      request: requestSchema({ task: str({ required: true }), model_events: bool({ default: false }) }),
      async handle(request, context) {
        const namespace = namespaceOf(request.model_events);
        const [entries] = await readableListings(context.identity.company, namespace, [request.task], [request.task]);
        return { metrics: Object.fromEntries(metricVariantsMap(entries!.filter(ofType(type)))) };
      },
    });

  return [
    getTaskMetrics,
    getMultiTaskMetrics,
    metricsAndVariants('events.get_scalar_metrics_and_variants', 'training_stats_scalar'),
    metricsAndVariants('events.get_vector_metrics_and_variants', 'training_stats_vector'),
  ];
}
