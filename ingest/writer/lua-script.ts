/**
 * A Lua script run by EVALSHA, falling back to EVAL when the server does not
 * know it (a restarted Redis, or a replica promoted after SCRIPT LOAD): the
 * script body travels once instead of with every call.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../shared/stores/redis-store.js';

export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
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
}
