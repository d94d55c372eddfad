/**
 * Which entities a caller may read or delete events of (events.md §0.4,
 * §6.3, §9): registered in the caller's company. Public (company-less) and
 * other companies' ids are unknown to reads.
 */
import { apiError, apiErrorWithMessage } from '../../../shared/errors/error-catalogue.js';
import { LAST_SCALAR_AT_FIELD, LISTING_VERSION_FIELD, MAX_ITER_FIELD } from '../../../shared/events/storage-layout.js';
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';

export type Namespace = 't' | 'm';

/** The parts of a task or model record the events reads use. */
export interface EntityRecord {
  id: string;
  company: string;
  name: string;
  status?: string;
  type?: string;
  ready?: string;
  /** Greatest receive time (epoch ms) of its scalar events, as the writer keeps it; absent when none, or for data written before it was kept. */
  lastScalarAt?: number;
  /** Greatest iteration of its InfluxDB events as the writer keeps it (null: none has one); absent when the writer does not know it (storage-layout MAX_ITER_FIELD). */
  maxIter?: number | null;
  /** The state of its metric listing as the writer names it (storage-layout LISTING_VERSION_FIELD); absent when not kept. */
  listingVersion?: string;
}

const FIELDS = [
  'company',
  'name',
  'status',
  'type',
  'ready',
  LAST_SCALAR_AT_FIELD,
  MAX_ITER_FIELD,
  LISTING_VERSION_FIELD,
] as const;

export const namespaceOf = (modelEvents: boolean | undefined): Namespace => (modelEvents ? 'm' : 't');

export class EntityAccess {
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** The records `company` holds of these ids (its own; company '' holds the public ones), in request order. */
  async records(
    company: string,
    namespace: Namespace,
    ids: readonly string[],
  ): Promise<Array<EntityRecord | undefined>> {
    if (ids.length === 0) return [];
    let rows: Array<Array<string | null>>;
    if (ids.length === 1) {
      // Most reads check one entity: one command, not MULTI, HMGET and EXEC.
      rows = [await this.redis.hmGet(this.keys.entity(company, namespace, ids[0]!), [...FIELDS])];
    } else {
      // One slot (the company's), so one MULTI works on a Redis Cluster too.
      const multi = this.redis.multi();
      for (const id of ids) multi.hmGet(this.keys.entity(company, namespace, id), [...FIELDS]);
      rows = (await multi.exec()) as unknown as Array<Array<string | null>>;
    }
    return rows.map((row, i) => {
      if (!row || row[0] === null || row[0] === undefined) return undefined;
      const [company, name, status, type, ready, lastScalarAt, maxIter, listingVersion] = row;
      return {
        id: ids[i]!,
        company: company!,
        name: name ?? ids[i]!,
        status: status ?? undefined,
        type: type ?? undefined,
        ready: ready ?? undefined,
        lastScalarAt: lastScalarAt === null || lastScalarAt === undefined ? undefined : Number(lastScalarAt),
        maxIter: maxIter === null || maxIter === undefined ? undefined : maxIter === '' ? null : Number(maxIter),
        listingVersion: listingVersion ?? undefined,
      };
    });
  }

  /** The records of entities readable by `company`, in request order; 400/101 (400/201) naming every requested id otherwise. */
  async requireReadable(company: string, namespace: Namespace, ids: readonly string[]): Promise<EntityRecord[]> {
    const records = await this.records(company, namespace, ids);
    if (records.some((r) => r === undefined)) {
      throw apiError(namespace === 't' ? 'invalid_task_id' : 'invalid_model_id', undefined, [['ids', [...ids]]]);
    }
    return records as EntityRecord[];
  }

  async requireOne(company: string, namespace: Namespace, id: string): Promise<EntityRecord> {
    return (await this.requireReadable(company, namespace, [id]))[0]!;
  }

  /** A task whose events the caller may delete (delete_for_task, clear_task_log; events.md §6.3, §9.1). */
  async requireDeletableTask(company: string, id: string, allowLocked: boolean): Promise<EntityRecord> {
    const [record] = await this.records(company, 't', [id]);
    if (record === undefined) {
      if (company !== '' && (await this.records('', 't', [id]))[0] !== undefined) {
        throw apiError('forbidden_modification', `cannot modify public task(s), ids=('${id}',)`);
      }
      throw apiError('invalid_task_id', undefined, [
        ['id', id],
        ['company', company],
      ]);
    }
    if (!allowLocked && (record.status === 'published' || record.status === 'publishing')) {
      throw apiErrorWithMessage(
        'invalid_task_id',
        `Cannot update events for a published task: company=${company}, id=${id}`,
      );
    }
    return record;
  }

  /** A model whose events the caller may delete (delete_for_model, events.md §9.2): public models count as unknown. */
  async requireDeletableModel(company: string, id: string, allowLocked: boolean): Promise<EntityRecord> {
    const [record] = await this.records(company, 'm', [id]);
    if (record === undefined) throw apiError('invalid_model_id', undefined, [['ids', [id]]]);
    if (!allowLocked && record.ready === '1') {
      throw apiErrorWithMessage(
        'invalid_model_id',
        `Cannot update events for a published model: company=${company}, id=${id}`,
      );
    }
    return record;
  }
}
