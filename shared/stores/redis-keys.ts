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
 *   `{...}`: one slot per entity (its record, last metrics, listing and log
 *   segments), per company (its indexes) and per project, so that a script
 *   touching one entity's keys stays on one node.
 */

const SAFE = /^[A-Za-z0-9_.-]*$/;

/** Injective encoding of a client-supplied key part (see above); the identity on [A-Za-z0-9_.-]. */
export function keyPart(value: string): string {
  if (SAFE.test(value)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const safe = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
    out += safe ? value[i] : `%${c.toString(16).padStart(4, '0')}`;
  }
  return out;
}

export type Namespace = 't' | 'm';

/** `<prefix>:{<kind>:<encoded part>}`: the braces make the part the Redis Cluster hash tag. */
const tagged = (prefix: string, kind: string, part: string) => `${prefix}:{${kind}:${keyPart(part)}}`;

export function redisKeys(prefix: string) {
  const entity = (namespace: Namespace, id: string) => tagged(prefix, namespace, id);
  const company = (id: string) => tagged(prefix, 'c', id);
  return {
    /** Hash: the record of a task (reports are tasks of type report) or model. */
    entity,
    task: (id: string) => entity('t', id),
    model: (id: string) => entity('m', id),
    /** Hash: last_metrics of an entity, field = JSON [metric, variant]. */
    lastMetrics: (namespace: Namespace, id: string) => `${entity(namespace, id)}:lm`,
    /** Set: metric listing of an entity, members `type\u001fmetric\u001fvariant\u001f<0|1 has a regular iteration>`. */
    metricListing: (namespace: Namespace, id: string) => `${entity(namespace, id)}:mv`,
    /** Log stream segment `n` of a task (0 is the main one; see docs/storage.md). */
    logSegment: (task: string, n: number) => (n === 0 ? `${entity('t', task)}:log` : `${entity('t', task)}:log:${n}`),
    /** String: number of log segments of a task. */
    logSegmentCount: (task: string) => `${entity('t', task)}:logn`,
    /** Set: a company's task (t) or model (m) ids. */
    companyEntities: (id: string, namespace: Namespace) => `${company(id)}:${namespace === 't' ? 'tasks' : 'models'}`,
    /** String: a navigation state of the company (events.plots, debug_images, sample viewers), with an expiry. */
    navigation: (companyId: string, stateId: string) => `${company(companyId)}:nav:${keyPart(stateId)}`,
    /** The company's own keys of other kinds (report indexes and the like): `<company key>:<name>`. */
    company,
    /** Hash: the record of a project. */
    project: (id: string) => tagged(prefix, 'p', id),
    /** Set: ids of the task records that reference the project. */
    projectTasks: (id: string) => `${tagged(prefix, 'p', id)}:tasks`,
    /** String: `{"deleted": n}` of a control request, kept 1 h for a requester that missed the reply. */
    controlResult: (id: string) => `${prefix}:ctl:${keyPart(id)}`,
    /** Hashes: display names remembered from identities (protocol.md §7.1). */
    userNames: `${prefix}:names:users`,
    companyNames: `${prefix}:names:companies`,
    /** String: a reports.get_all_ex / get_task_data scroll state of the company. */
    reportScroll: (companyId: string, id: string) => `${company(companyId)}:rscroll:${keyPart(id)}`,
    /** Coordination of the writers of one JetStream stream (leases, live writers). */
    writer: (streamPrefix: string) => `${prefix}:writer:${keyPart(streamPrefix)}`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
