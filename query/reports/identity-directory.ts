/**
 * Display names remembered from authenticated identities (protocol.md §7.1)
 * for the `user.name` / `company.name` projections (reports.md §1.2).
 * auth.login calls `remember` through its `rememberIdentity` hook; the
 * reports operations call it too, so Basic-authenticated callers get names
 * without logging in. A per-process memo keeps that to one Redis write per
 * new (id, name) pair.
 */
import type { Identity } from '../../shared/auth/identity.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { reportKeys } from './store/report-keys.js';

const MEMO_LIMIT = 10_000;

export class IdentityDirectory {
  private readonly keys;
  private readonly known = new Set<string>();

  constructor(
    private readonly redis: () => RedisClient,
    prefix: string,
  ) {
    this.keys = reportKeys(prefix);
  }

  /** Stores the identity's user and company display names (the ones it carries). */
  async remember(identity: Identity): Promise<void> {
    const writes: Array<[key: string, id: string, name: string]> = [];
    if (identity.user && identity.user_name) writes.push([this.keys.userNames, identity.user, identity.user_name]);
    if (identity.company && identity.company_name)
      writes.push([this.keys.companyNames, identity.company, identity.company_name]);
    const fresh = writes.filter(([key, id, name]) => !this.known.has(`${key}\u0000${id}\u0000${name}`));
    if (fresh.length === 0) return;
    const multi = this.redis().multi();
    for (const [key, id, name] of fresh) multi.hSet(key, id, name);
    await multi.exec();
    if (this.known.size > MEMO_LIMIT) this.known.clear();
    for (const [key, id, name] of fresh) this.known.add(`${key}\u0000${id}\u0000${name}`);
  }

  /** Display names of users and companies; ids without a remembered name are absent. */
  async names(
    users: readonly string[],
    companies: readonly string[],
  ): Promise<{ users: Map<string, string>; companies: Map<string, string> }> {
    const lookup = async (key: string, ids: readonly string[]) => {
      const unique = [...new Set(ids)].filter((id) => id !== '');
      if (unique.length === 0) return new Map<string, string>();
      const values = await this.redis().hmGet(key, unique);
      return new Map(unique.flatMap((id, i) => (values[i] == null ? [] : [[id, values[i]!] as [string, string]])));
    };
    const [u, c] = await Promise.all([lookup(this.keys.userNames, users), lookup(this.keys.companyNames, companies)]);
    return { users: u, companies: c };
  }
}

/**
 * The hook for auth.login: `authLoginOperation({ tokens, rememberIdentity: rememberIdentityHook(deps) })`.
 * `deps` is anything with a redis getter and a key prefix (QueryDeps).
 */
export function rememberIdentityHook(deps: {
  readonly redis: RedisClient;
  readonly keyPrefix: string;
}): (identity: Identity) => Promise<void> {
  const directory = new IdentityDirectory(() => deps.redis, deps.keyPrefix);
  return (identity) => directory.remember(identity);
}
