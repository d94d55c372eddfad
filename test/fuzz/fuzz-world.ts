/**
 * The entities a fuzz run works with, named from the seed, and the symbolic
 * references generators use for them. A generated request names entities as
 * `IdRef`s ("the caller's second witness task, plus `:lm`"); the sender
 * resolves them against the live world, whose tokens, report ids and scroll
 * ids only exist once the service runs.
 *
 * Per company:
 * - targets: tasks with data that hostile requests may read, write and delete;
 * - witnesses: tasks that receive the well-formed events whose reads are
 *   checked at the end. Their own company never deletes, publishes or moves
 *   them; hostile events (poison beside well-formed siblings), foreign
 *   companies and adversarial variants of their ids are fair game;
 * - models, reports (created at setup) and the scroll ids setup collected.
 */
import { KeyedObject, RawJson, type JsonTree } from './json-text.js';

export type CompanyKey = 'a' | 'b';
export type Pool = 'target' | 'witness' | 'model' | 'report' | 'project';

export interface FuzzCredential {
  access_key: string;
  secret_key: string;
  company: string;
  user: string;
}

export interface CompanyWorld {
  readonly key: CompanyKey;
  readonly credential: FuzzCredential;
  /** Bearer token from auth.login (set by setup). */
  token: string;
  readonly targets: string[];
  readonly witnesses: string[];
  readonly models: string[];
  /** Report ids and project ids from reports.create (set by setup). */
  reports: string[];
  projects: string[];
  /** Scroll ids and navigation state ids setup obtained, by operation. */
  scrolls: Array<{ op: string; id: string }>;
  /** Text inside every well-formed event of this company: finding it in another company's answer is a leak. */
  readonly marker: string;
}

export interface World {
  readonly seed: number;
  readonly companies: Record<CompanyKey, CompanyWorld>;
  /** The service's AUTH_SECRET: lets the fuzzer sign expired tokens, as a real client holds after 30 days. */
  readonly authSecret: string;
}

/** Ways an id is bent into another entity's key, or into something no key builder expects. */
export const ID_MUTATIONS = [
  ':lm',
  ':mv',
  ':1',
  ':2',
  ':0',
  ':n',
  ':log',
  ':task',
  ':model',
  ':*',
  '*',
  '{',
  '}',
  '{x}',
  ' ',
  '\n',
  '\r\n',
  '\u0000',
  '\t',
  ',c=x',
  ' c=x',
  '=',
  ',',
  '\\',
  "'",
  '"',
  '/',
  '/..',
  '\uD800',
  '😀',
  '\u202E',
  '.',
  '$',
  '#',
  '?',
  '%00',
] as const;

export type IdMutation =
  | { kind: 'suffix'; text: string }
  | { kind: 'prefix'; text: string }
  | { kind: 'wrap'; open: string; close: string }
  | { kind: 'upper' }
  | { kind: 'long'; length: number }
  | { kind: 'join'; other: IdRef }
  | { kind: 'prefixed-by-company' };

export class IdRef {
  constructor(
    readonly whose: 'own' | 'foreign',
    readonly pool: Pool,
    readonly index: number,
    readonly mutation?: IdMutation,
  ) {}
}

export class ScrollRef {
  constructor(
    readonly whose: 'own' | 'foreign',
    readonly index: number,
    readonly mutation: 'none' | 'append' | 'flip' | 'truncate' | 'reencode' | 'double',
  ) {}
}

/** Tree leaves that become strings at send time. */
export type Symbolic = IdRef | ScrollRef;

export function worldNames(
  seed: number,
  key: CompanyKey,
): Pick<CompanyWorld, 'targets' | 'witnesses' | 'models' | 'marker'> {
  const base = `fz${seed.toString(36)}${key}`;
  return {
    targets: [0, 1, 2].map((i) => `${base}t${i}`),
    witnesses: [0, 1, 2, 3].map((i) => `${base}w${i}`),
    models: [0, 1].map((i) => `${base}m${i}`),
    marker: `WF${key.toUpperCase()}${seed.toString(36)}`,
  };
}

export function otherCompany(key: CompanyKey): CompanyKey {
  return key === 'a' ? 'b' : 'a';
}

function pick<T>(items: readonly T[], index: number): T | undefined {
  return items.length === 0 ? undefined : items[index % items.length];
}

export function resolveId(ref: IdRef, world: World, caller: CompanyKey): string {
  const company = world.companies[ref.whose === 'own' ? caller : otherCompany(caller)];
  const pools: Record<Pool, string[]> = {
    target: company.targets,
    witness: company.witnesses,
    model: company.models,
    report: company.reports,
    project: company.projects,
  };
  const base = pick(pools[ref.pool], ref.index) ?? pick(company.targets, ref.index)!;
  const m = ref.mutation;
  if (m === undefined) return base;
  switch (m.kind) {
    case 'suffix':
      return base + m.text;
    case 'prefix':
      return m.text + base;
    case 'wrap':
      return m.open + base + m.close;
    case 'upper':
      return base.toUpperCase();
    case 'long':
      return base.repeat(Math.ceil(m.length / base.length)).slice(0, m.length);
    case 'join':
      return `${base}:${resolveId(m.other, world, caller)}`;
    case 'prefixed-by-company':
      return `${company.credential.company}:${base}`;
  }
}

export function resolveScroll(ref: ScrollRef, world: World, caller: CompanyKey): string {
  const company = world.companies[ref.whose === 'own' ? caller : otherCompany(caller)];
  const id = pick(company.scrolls, ref.index)?.id ?? 'f'.repeat(32);
  switch (ref.mutation) {
    case 'none':
      return id;
    case 'append':
      return `${id}x`;
    case 'flip': {
      const at = ref.index % id.length;
      return id.slice(0, at) + (id[at] === 'A' ? 'B' : 'A') + id.slice(at + 1);
    }
    case 'truncate':
      return id.slice(0, Math.max(0, id.length - 1 - (ref.index % 8)));
    case 'reencode':
      return Buffer.from(id).toString('base64');
    case 'double':
      return `${id}.${id}`;
  }
}

/** A JSON tree whose leaves may be symbolic. */
export type SymbolicTree = JsonTree | Symbolic | SymbolicTree[] | KeyedSymbolic | { [key: string]: SymbolicTree };

export class KeyedSymbolic {
  constructor(readonly entries: ReadonlyArray<readonly [string, SymbolicTree]>) {}
}

/** Replaces every symbolic leaf with its string. Generated trees are shallow (deep parts are RawJson). */
export function resolveTree(tree: SymbolicTree, world: World, caller: CompanyKey): JsonTree {
  if (tree instanceof IdRef) return resolveId(tree, world, caller);
  if (tree instanceof ScrollRef) return resolveScroll(tree, world, caller);
  if (tree === null || typeof tree !== 'object' || tree instanceof RawJson) return tree;
  if (Array.isArray(tree)) return tree.map((item) => resolveTree(item, world, caller));
  if (tree instanceof KeyedObject)
    return new KeyedObject(tree.entries.map(([k, v]) => [k, resolveTree(v, world, caller)] as const));
  if (tree instanceof KeyedSymbolic)
    return new KeyedObject(tree.entries.map(([k, v]) => [k, resolveTree(v, world, caller)] as const));
  return new KeyedObject(Object.entries(tree).map(([k, v]) => [k, resolveTree(v, world, caller)] as const));
}
