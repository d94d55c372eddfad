/**
 * Facts about tasks and models that the events and reports operations need:
 * whether an id exists in the caller's company, its name, project and
 * status. Standalone, the service's own registry holds them (events.md
 * §1.10); in companion mode the ClearML server does
 * (`shared/companion/clearml-entity-facts.ts`, docs/clearml-companion.md).
 */
export type FactNamespace = 't' | 'm';

export interface EntityFact {
  readonly id: string;
  /** Owner company; `''` for a public record. */
  readonly company: string;
  readonly name: string;
  readonly project?: { readonly id: string; readonly name?: string };
  /** Task status (tasks only). */
  readonly status?: string;
  /** Task type (tasks only). */
  readonly type?: string;
  /** Published model (models only). */
  readonly ready?: boolean;
}

/** A task is locked when published or publishing, a model when ready (events.md §1.9). */
export function isLocked(namespace: FactNamespace, fact: EntityFact): boolean {
  return namespace === 't' ? fact.status === 'published' || fact.status === 'publishing' : fact.ready === true;
}

export interface EntityFactsSource {
  /**
   * The facts of those `ids` that exist in `company`, by id; ids of other
   * companies (public ones included) are absent, as if they did not exist.
   * One call per request or batch of ids, never per event.
   */
  facts(company: string, namespace: FactNamespace, ids: readonly string[]): Promise<ReadonlyMap<string, EntityFact>>;
}
