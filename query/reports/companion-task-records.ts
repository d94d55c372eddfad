/**
 * get_task_data records in companion mode (docs/clearml-companion.md): the
 * ClearML server says which tasks (models) exist in the caller's company and
 * gives their name, project and status; this service adds what its writers
 * keep (last_metrics, last_iteration, last_update, ...). A task the ClearML
 * server knows that never wrote an event here is answered with its ClearML
 * facts alone. Reports created here are answered as standalone. Records of
 * this service that the ClearML server does not show to the caller are left
 * out, whatever their company says.
 *
 * A request naming plain ids asks the ClearML server for those ids; any
 * other request can only search the records that exist here (entities that
 * wrote events, and reports), each confirmed with the ClearML server.
 */
import type { EntityFact, EntityFactsSource } from '../../shared/entities/entity-facts.js';
import { localReportsOf } from '../../shared/companion/local-reports.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import type { StoredRecord } from './query-language/types.js';
import type { ProjectRecord } from './store/project-snapshots.js';
import type { ReportKeys } from './store/report-keys.js';
import { plainIds, TaskRecords, type EntityKind } from './task-records.js';

export interface LoadedRecords {
  records: StoredRecord[];
  /** The ClearML projects the records name, for `project.name` (they are not records of this service). */
  projects: ProjectRecord[];
}

export class CompanionTaskRecords {
  private readonly local: TaskRecords;
  private readonly localReports;

  constructor(
    redis: RedisClient,
    keys: ReportKeys,
    private readonly facts: EntityFactsSource,
  ) {
    this.local = new TaskRecords(redis, keys);
    this.localReports = localReportsOf(() => redis, keys.prefix);
  }

  async load(
    kind: EntityKind,
    company: string,
    request: Record<string, unknown>,
    withMetrics: boolean,
  ): Promise<LoadedRecords> {
    const namespace = kind === 'task' ? 't' : 'm';
    // Public records have no events and no ClearML facts here: only the caller's company is searched.
    const own = await this.local.load(kind, [company], request, false);
    const ids = plainIds(request) ?? own.map((r) => r.id as string);
    const facts = await this.facts.facts(company, namespace, ids);
    const ownById = new Map(own.map((r) => [r.id as string, r]));
    const reports =
      kind === 'task'
        ? await this.localReports(
            company,
            ids.filter((id) => !facts.has(id) && ownById.has(id)),
          )
        : new Set<string>();
    const records: StoredRecord[] = [];
    for (const id of ids) {
      const fact = facts.get(id);
      if (fact !== undefined) records.push(withFacts(ownById.get(id), fact));
      else if (reports.has(id)) records.push(ownById.get(id)!);
    }
    const projects = new Map<string, ProjectRecord>();
    for (const fact of facts.values()) {
      if (fact.project?.name !== undefined)
        projects.set(fact.project.id, Object.freeze({ id: fact.project.id, name: fact.project.name }));
    }
    return {
      records: withMetrics ? await this.local.withLastMetrics(kind, records) : records,
      projects: [...projects.values()],
    };
  }

  withLastMetrics(kind: EntityKind, records: readonly StoredRecord[]): Promise<StoredRecord[]> {
    return this.local.withLastMetrics(kind, records);
  }
}

/** The service's record of the entity (if it has events) with the ClearML server's facts over it. */
function withFacts(own: StoredRecord | undefined, fact: EntityFact): StoredRecord {
  return Object.freeze({
    ...(own ?? {}),
    id: fact.id,
    company: fact.company,
    name: fact.name,
    ...(fact.project === undefined ? {} : { project: fact.project.id }),
    ...(fact.status === undefined ? {} : { status: fact.status }),
    ...(fact.type === undefined ? {} : { type: fact.type }),
    ...(fact.ready === undefined ? {} : { ready: fact.ready }),
  });
}
