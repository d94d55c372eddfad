/**
 * A Lua script run by EVALSHA, falling back to EVAL when the server does not
 * know it (a restarted Redis, or a replica promoted after SCRIPT LOAD): the
 * script body travels once instead of with every call. The one script
 * adapter of the code base: every key a script touches is passed in `keys`
 * (built by redis-keys.ts), never assembled inside the script, which is what
 * Redis Cluster requires.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-store.js';

export interface ScriptCall {
  keys: string[];
  args: string[];
}

export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await client.evalSha(this.sha, { keys, arguments: args });
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, { keys, arguments: args });
    }
  }

  /**
   * Runs the script once per call in one pipeline (one round trip), replies
   * in call order. Only for idempotent scripts: when a node does not know the
   * script, the whole pipeline is sent again as EVAL, which also caches the
   * script on every node that runs it (on a Redis Cluster, SCRIPT LOAD would
   * reach one random node).
   */
  async runMany(client: RedisClient, calls: readonly ScriptCall[]): Promise<unknown[]> {
    // Commands issued in one tick leave in one write per node: this is a pipeline.
    const settled = await Promise.allSettled(
      calls.map((call) => client.evalSha(this.sha, { keys: call.keys, arguments: call.args })),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed === undefined) return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
    if (!String((failed.reason as Error)?.message).startsWith('NOSCRIPT')) throw failed.reason;
    return Promise.all(calls.map((call) => client.eval(this.source, { keys: call.keys, arguments: call.args })));
  }
}
