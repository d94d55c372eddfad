/**
 * Every Redis key name of the service, built here and nowhere else
 * (docs/storage.md, "Redis keys").
 *
 * Two rules make keys safe whatever a client names its tasks, models,
 * projects or states:
 * - Injective: each client-supplied part goes through `keyPart`, which
 *   leaves [A-Za-z0-9_.-] as is and writes every other UTF-16 code unit as
 *   `%` + four hex digits. Encoded parts hold no `:`, `{`, `}` or `%` of
 *   their own, so a key splits back into its parts in exactly one way, and
 *   no id (`<other task>:lm`, `x}:y`, ...) can name another entity's key.
 * - Redis Cluster ready: the part that decides the hash slot is wrapped in
 *   `{...}`. A company's records live in its slot (`{c:<company>}`): task,
 *   model and project records, their last metrics and listings, and the
 *   company's indexes, so that a script changing a report, its project and
 *   the name index stays on one node and atomic. What grows with events
 *   rather than with entities lives in the entity's own slot (`{t:<id>}`):
 *   its log segments, and the key that says which company owns the id
 *   (ids are global, events.md §1.10).
 */

const SAFE = /^[A-Za-z0-9_.-]*$/;

/** Injective encoding of a client-supplied key part (see above); the identity on [A-Za-z0-9_.-]. */
export function keyPart(value: string): string {
  if (SAFE.test(value)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const safe =
      (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
    out += safe ? value[i] : `%${c.toString(16).padStart(4, '0')}`;
  }
  return out;
}

export type Namespace = 't' | 'm';

/** `<prefix>:{<kind>:<encoded part>}`: the braces make the part the Redis Cluster hash tag. */
const tagged = (prefix: string, kind: string, part: string) => `${prefix}:{${kind}:${keyPart(part)}}`;

export function redisKeys(prefix: string) {
  const company = (id: string) => tagged(prefix, 'c', id);
  /** Hash: the record of a task (reports are tasks of type report) or model, in its company's slot. */
  const entity = (companyId: string, namespace: Namespace, id: string) =>
    `${company(companyId)}:${namespace}:${keyPart(id)}`;
  const project = (companyId: string, id: string) => `${company(companyId)}:p:${keyPart(id)}`;
  const log = (task: string) => tagged(prefix, 't', task);
  return {
    entity,
    task: (companyId: string, id: string) => entity(companyId, 't', id),
    model: (companyId: string, id: string) => entity(companyId, 'm', id),
    /** String: the company that owns a task or model id (ids are global; set once, by the first writer). */
    owner: (namespace: Namespace, id: string) => `${tagged(prefix, namespace, id)}:owner`,
    /** Hash: last_metrics of an entity, field = JSON [metric, variant]. */
    lastMetrics: (companyId: string, namespace: Namespace, id: string) => `${entity(companyId, namespace, id)}:lm`,
    /** Set: metric listing of an entity, members `type\u001fmetric\u001fvariant\u001f<0|1 has a regular iteration>`. */
    metricListing: (companyId: string, namespace: Namespace, id: string) => `${entity(companyId, namespace, id)}:mv`,
    /** String: the company's counter of metric listing versions (storage-layout LISTING_VERSION_FIELD); only grows. */
    listingVersions: (companyId: string) => `${company(companyId)}:listing_versions`,
    /** Hash: the recent-iteration index of an entity's debug images (shared/events/image-index.ts), field JSON [metric, variant]. */
    imageIndex: (companyId: string, namespace: Namespace, id: string) => `${entity(companyId, namespace, id)}:ii`,
    /** Hash: the latest uses of each image URL, per variant, that keep the image index's validity. */
    imageIndexUrls: (companyId: string, namespace: Namespace, id: string) => `${entity(companyId, namespace, id)}:iu`,
    /** Log stream segment `n` of a task (0 is the main one; see docs/storage.md). */
    logSegment: (task: string, n: number) => (n === 0 ? `${log(task)}:log` : `${log(task)}:log:${n}`),
    /** String: number of log segments of a task. */
    logSegmentCount: (task: string) => `${log(task)}:logn`,
    /** Set: a company's task (t) or model (m) ids. */
    companyEntities: (id: string, namespace: Namespace) => `${company(id)}:${namespace === 't' ? 'tasks' : 'models'}`,
    /** String: a navigation state of the company (events.plots, debug_images, sample viewers), with an expiry. */
    navigation: (companyId: string, stateId: string) => `${company(companyId)}:nav:${keyPart(stateId)}`,
    /** The company's own keys of other kinds (report indexes and the like): `<company key>:<name>`. */
    company,
    /** Hash: the record of a project. */
    project,
    /** Set: ids of the task records that reference the project. */
    projectTasks: (companyId: string, id: string) => `${project(companyId, id)}:tasks`,
    /** String: `{"deleted": n}` of a control request, kept 1 h for a requester that missed the reply. */
    controlResult: (id: string) => `${prefix}:ctl:${keyPart(id)}`,
    /** Hashes: display names remembered from identities (protocol.md §7.1); one slot, written in one MULTI. */
    userNames: `${prefix}:{names}:users`,
    companyNames: `${prefix}:{names}:companies`,
    /** String: a reports.get_all_ex / get_task_data scroll state of the company. */
    reportScroll: (companyId: string, id: string) => `${company(companyId)}:rscroll:${keyPart(id)}`,
    /** Coordination of the writers of one JetStream stream (leases, live writers): one slot, the lease scripts touch several. */
    writer: (streamPrefix: string) => tagged(prefix, 'writer', streamPrefix),
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
