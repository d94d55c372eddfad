/**
 * Entity checks of event writes in companion mode (docs/clearml-companion.md):
 * the ClearML server says whether each task or model exists in the caller's
 * company and whether it is locked (a published task, a ready model;
 * events.md §1.9). Ids it does not know are rejected as ClearML rejects them
 * (`Invalid task id <id>`), except the reports this service created itself,
 * which live only here. Accepted entities still get their record in the
 * service's own registry, where the writers keep last_metrics,
 * last_iteration and the other statistics (events.md §1.11).
 */
import type { EntityRegistry, EntityRequest, EntityStatus } from '../../shared/entities/entity-registry.js';
import { isLocked, type EntityFactsSource, type FactNamespace } from '../../shared/entities/entity-facts.js';

/** What ingest needs of a registry (EntityRegistry standalone, this class in companion mode). */
export type EntityChecks = Pick<EntityRegistry, 'checkAndRegister'>;

/** Which ids are reports of this service (they have no ClearML record). */
export type LocalReports = (company: string, ids: readonly string[]) => Promise<ReadonlySet<string>>;

export class CompanionRegistry implements EntityChecks {
  constructor(
    private readonly local: EntityChecks,
    private readonly facts: EntityFactsSource,
    private readonly localReports: LocalReports,
  ) {}

  async checkAndRegister(
    company: string,
    user: string,
    now: number,
    entities: readonly EntityRequest[],
  ): Promise<EntityStatus[]> {
    const known = new Map<FactNamespace, ReadonlyMap<string, { locked: boolean }>>();
    for (const namespace of ['t', 'm'] as const) {
      const ids = entities.filter((e) => e.namespace === namespace).map((e) => e.id);
      if (ids.length === 0) continue;
      const facts = await this.facts.facts(company, namespace, ids);
      known.set(namespace, new Map([...facts].map(([id, fact]) => [id, { locked: isLocked(namespace, fact) }])));
    }
    const unknownTasks = entities.filter((e) => e.namespace === 't' && !known.get('t')?.has(e.id)).map((e) => e.id);
    const reports = unknownTasks.length > 0 ? await this.localReports(company, unknownTasks) : new Set<string>();

    // Only ClearML's entities are registered here; a report keeps its own record and status.
    const asked = entities.map((e) => {
      const clearml = known.get(e.namespace)?.has(e.id) === true;
      return { ...e, register: e.register && clearml, relevant: clearml || (e.namespace === 't' && reports.has(e.id)) };
    });
    const localStatuses = await this.local.checkAndRegister(
      company,
      user,
      now,
      asked.filter((e) => e.relevant),
    );
    let next = 0;
    return asked.map((e): EntityStatus => {
      if (!e.relevant) return 'foreign';
      const local = localStatuses[next++]!;
      // Another company's record under the same id (left from standalone use) is never shared.
      if (local === 'foreign') return 'foreign';
      const fact = known.get(e.namespace)?.get(e.id);
      if (fact === undefined) return local;
      return fact.locked ? 'locked' : local === 'new' ? 'new' : 'ok';
    });
  }
}
