/**
 * Entity access in companion mode (docs/clearml-companion.md): whether a
 * task or model exists in the caller's company, its name and its status are
 * the ClearML server's; the service's own record adds only what its writers
 * keep (the time of the latest scalar). An entity the ClearML server knows
 * but that never wrote an event here is readable and has no events, as in
 * ClearML (reads answer empty data instead of 400/101). Reports created by
 * this service exist only here and are read as standalone. Anything else,
 * another company's ids included, is unknown exactly as standalone.
 */
import { apiError, apiErrorWithMessage } from '../../../shared/errors/error-catalogue.js';
import { localReportsOf } from '../../../shared/companion/local-reports.js';
import { isLocked, type EntityFact, type EntityFactsSource } from '../../../shared/entities/entity-facts.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import { EntityAccess, type EntityRecord, type Namespace } from './entity-access.js';

export class CompanionEntityAccess extends EntityAccess {
  private readonly localReports;

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly facts: EntityFactsSource,
  ) {
    super(redis, prefix);
    this.localReports = localReportsOf(() => redis, prefix);
  }

  override async requireReadable(
    company: string,
    namespace: Namespace,
    ids: readonly string[],
  ): Promise<EntityRecord[]> {
    const records = await this.readable(company, namespace, ids);
    if (records.some((r) => r === undefined)) {
      throw apiError(namespace === 't' ? 'invalid_task_id' : 'invalid_model_id', undefined, [['ids', [...ids]]]);
    }
    return records as EntityRecord[];
  }

  /** Per id, its record as the caller may see it, or undefined when it does not exist for the caller. */
  async readable(
    company: string,
    namespace: Namespace,
    ids: readonly string[],
  ): Promise<Array<EntityRecord | undefined>> {
    const [facts, local] = await Promise.all([
      this.facts.facts(company, namespace, ids),
      this.records(company, namespace, ids),
    ]);
    const others = ids.filter((id) => !facts.has(id));
    const reports =
      namespace === 't' && others.length > 0 ? await this.localReports(company, others) : new Set<string>();
    return ids.map((id, i) => {
      const own = local[i]?.company === company ? local[i] : undefined;
      const fact = facts.get(id);
      if (fact !== undefined) return recordOf(fact, own);
      return own !== undefined && reports.has(id) ? own : undefined;
    });
  }

  override async requireDeletableTask(company: string, id: string, allowLocked: boolean): Promise<EntityRecord> {
    const fact = (await this.facts.facts(company, 't', [id])).get(id);
    if (fact === undefined) {
      if ((await this.localReports(company, [id])).has(id)) return super.requireDeletableTask(company, id, allowLocked);
      throw apiError('invalid_task_id', undefined, [
        ['id', id],
        ['company', company],
      ]);
    }
    if (!allowLocked && isLocked('t', fact)) {
      throw apiErrorWithMessage(
        'invalid_task_id',
        `Cannot update events for a published task: company=${company}, id=${id}`,
      );
    }
    const [own] = await this.records(company, 't', [id]);
    return recordOf(fact, own?.company === company ? own : undefined);
  }

  override async requireDeletableModel(company: string, id: string, allowLocked: boolean): Promise<EntityRecord> {
    const fact = (await this.facts.facts(company, 'm', [id])).get(id);
    if (fact === undefined) throw apiError('invalid_model_id', undefined, [['ids', [id]]]);
    if (!allowLocked && isLocked('m', fact)) {
      throw apiErrorWithMessage(
        'invalid_model_id',
        `Cannot update events for a published model: company=${company}, id=${id}`,
      );
    }
    const [own] = await this.records(company, 'm', [id]);
    return recordOf(fact, own?.company === company ? own : undefined);
  }
}

/** The ClearML facts, with what the writers keep here when the entity has events. */
function recordOf(fact: EntityFact, own: EntityRecord | undefined): EntityRecord {
  return {
    id: fact.id,
    company: fact.company,
    name: fact.name,
    ...(fact.status === undefined ? {} : { status: fact.status }),
    ...((fact.type ?? own?.type) ? { type: fact.type ?? own?.type } : {}),
    ...(fact.ready === undefined ? {} : { ready: fact.ready ? '1' : '0' }),
    ...(own?.lastScalarAt === undefined ? {} : { lastScalarAt: own.lastScalarAt }),
    ...(own?.maxIter === undefined ? {} : { maxIter: own.maxIter }),
    ...(own?.listingVersion === undefined ? {} : { listingVersion: own.listingVersion }),
  };
}
