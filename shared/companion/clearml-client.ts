/**
 * The calls companion mode makes to the ClearML API server:
 * `tasks.get_all_ex` and `models.get_all_ex` with an `id` list, projected to
 * what the entity checks need, and `projects.get_all_ex` for the name of a
 * project a report goes into, sent with the caller's own credential so
 * that the ClearML server applies its own company rules
 * (docs/clearml-companion.md).
 *
 * ClearML answers at most 500 records per call (its mongo `max_page_size`,
 * apiserver/database/model/base.py `validate_paging`), so ids go out in
 * chunks of that size. Reference fields come back as objects: `company` as
 * `{"id": ...}` (`{}` for public records) and `project` as `{"id", "name"}`
 * when `project.name` is projected (apiserver/database/projection.py); a
 * plain id string is accepted too.
 */
import { apiError } from '../errors/error-catalogue.js';
import type { EntityFact, FactNamespace } from '../entities/entity-facts.js';
import { trimEndChar } from '../text/trim-char.js';

/** ClearML's largest page (apiserver/database/model/base.py, `max_page_size` default). */
export const CLEARML_MAX_PAGE = 500;

/** A ClearML project as companion mode needs it: its full (`/`-separated) name and owner. */
export interface ProjectFact {
  readonly id: string;
  readonly name: string;
  /** `''` for a public project. */
  readonly company: string;
}

const TASK_FIELDS = ['id', 'name', 'company', 'project.name', 'status', 'type'];
const MODEL_FIELDS = ['id', 'name', 'company', 'project.name', 'ready'];

export class ClearmlClient {
  private readonly base: string;

  constructor(
    serverUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.base = trimEndChar(serverUrl, '/');
  }

  /** The records of `ids` the ClearML server shows to the holder of `authorization`. */
  async entities(
    namespace: FactNamespace,
    ids: readonly string[],
    authorization: string | undefined,
  ): Promise<EntityFact[]> {
    const found: EntityFact[] = [];
    for (let start = 0; start < ids.length; start += CLEARML_MAX_PAGE) {
      const chunk = ids.slice(start, start + CLEARML_MAX_PAGE);
      const data = await this.call(namespace === 't' ? 'tasks.get_all_ex' : 'models.get_all_ex', authorization, {
        id: chunk,
        only_fields: namespace === 't' ? TASK_FIELDS : MODEL_FIELDS,
        // Public records have no events here (protocol.md §7.6); asking only for the company's saves the filtering.
        allow_public: false,
        page: 0,
        page_size: chunk.length,
      });
      const list = (data as Record<string, unknown> | undefined)?.[namespace === 't' ? 'tasks' : 'models'];
      if (!Array.isArray(list)) throw unavailable('answer without a record list');
      for (const item of list) {
        const fact = factOf(item);
        if (fact !== undefined) found.push(fact);
      }
    }
    return found;
  }

  /** The projects of `ids` (hidden ones too) the ClearML server shows to the holder of `authorization`. */
  async projects(ids: readonly string[], authorization: string | undefined): Promise<ProjectFact[]> {
    const found: ProjectFact[] = [];
    for (let start = 0; start < ids.length; start += CLEARML_MAX_PAGE) {
      const chunk = ids.slice(start, start + CLEARML_MAX_PAGE);
      const data = await this.call('projects.get_all_ex', authorization, {
        id: chunk,
        only_fields: ['id', 'name', 'company'],
        search_hidden: true,
        allow_public: false,
        page: 0,
        page_size: chunk.length,
      });
      const list = (data as Record<string, unknown> | undefined)?.projects;
      if (!Array.isArray(list)) throw unavailable('answer without a project list');
      for (const item of list) {
        const record = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
        const id = text(record.id);
        const name = text(record.name);
        if (id !== undefined && name !== undefined)
          found.push({ id, name, company: reference(record.company)?.id ?? '' });
      }
    }
    return found;
  }

  private async call(endpoint: string, authorization: string | undefined, body: unknown): Promise<unknown> {
    let response: Response;
    let envelope: { meta?: { result_code?: unknown }; data?: unknown };
    try {
      response = await fetch(`${this.base}/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      envelope = (await response.json()) as typeof envelope;
    } catch (error) {
      throw unavailable(
        (error as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : 'unreachable',
        error,
      );
    }
    const code = typeof envelope?.meta?.result_code === 'number' ? envelope.meta.result_code : response.status;
    if (code === 200) return envelope.data;
    // The caller's credential is not good for the ClearML server: the caller's problem, not a transient one.
    if (code === 401 || code === 403) throw apiError('invalid_credentials', 'the ClearML server refused them');
    throw unavailable(`${endpoint} answered ${code}`);
  }
}

function unavailable(detail: string, cause?: unknown) {
  // The detail goes to the log (cause), never the credential; the client gets the catalogue text.
  return apiError('clearml_unavailable', undefined, undefined, { cause: cause ?? new Error(detail) });
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A reference as ClearML renders it: an id string, or an object with `id` (and `name` when projected). */
function reference(value: unknown): { id: string; name?: string } | undefined {
  if (typeof value === 'string') return { id: value };
  if (value === null || typeof value !== 'object') return undefined;
  const id = text((value as Record<string, unknown>).id);
  if (id === undefined) return undefined;
  const name = text((value as Record<string, unknown>).name);
  return name === undefined ? { id } : { id, name };
}

function factOf(item: unknown): EntityFact | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const record = item as Record<string, unknown>;
  const id = text(record.id);
  if (id === undefined) return undefined;
  const project = reference(record.project);
  return {
    id,
    company: reference(record.company)?.id ?? '',
    name: text(record.name) ?? id,
    ...(project === undefined || project.id === '' ? {} : { project }),
    ...(text(record.status) === undefined ? {} : { status: text(record.status) }),
    ...(text(record.type) === undefined ? {} : { type: text(record.type) }),
    ...(typeof record.ready === 'boolean' ? { ready: record.ready } : {}),
  };
}
