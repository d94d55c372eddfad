/**
 * Redis leases that give one writer process at a time a partition (so that
 * per-entity order holds), and the heartbeats that tell each writer how many
 * others are alive (so that they share partitions fairly).
 *
 * A lease is `SET key <writer id> NX PX ttl`; only its holder may renew or
 * delete it (compare-and-set scripts). Heartbeats are scores in a sorted set,
 * taken from the Redis clock so that writers on skewed hosts agree.
 */
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { LuaScript } from '../../shared/stores/lua-script.js';
import type { WriterKeys } from './writer-keys.js';

const RENEW = new LuaScript(`
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out`);

const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

// Takes free leases, in the order given, until ARGV[3] are held by this call.
const ACQUIRE = new LuaScript(`
local out = {}
local wanted = tonumber(ARGV[3])
for i, key in ipairs(KEYS) do
  if #out >= wanted then break end
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then out[#out + 1] = i end
end
return out`);

const HEARTBEAT = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 3)
return redis.call('ZCARD', KEYS[1])`);

/** Confirms that the masters of the given keys have this client's writes on their replicas (replica-sync.ts). */
export interface LeaseReplication {
  confirmKeys(keys: Iterable<string>): Promise<void>;
}

export class PartitionLeases {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: WriterKeys,
    readonly writerId: string,
    private readonly ttlMs: number,
    private readonly replication?: LeaseReplication,
  ) {}

  /**
   * Resolves once the leases taken or renewed so far are on the Redis
   * replicas (when there are any): a failover to a replica that lacks a
   * renewal would let another writer take a partition this one still
   * writes to. Every lease key is in one hash slot, so one master is asked.
   */
  async replicated(): Promise<void> {
    await this.replication?.confirmKeys([this.keys.liveWriters]);
  }

  /** Announces this writer; answers the number of live writers (itself included). */
  async heartbeat(): Promise<number> {
    return Number(await HEARTBEAT.run(this.client, [this.keys.liveWriters], [this.writerId, String(this.ttlMs)]));
  }

  async leave(): Promise<void> {
    await this.client.zRem(this.keys.liveWriters, this.writerId);
  }

  /** Tries the partitions in order; answers those now held (at most `wanted`). */
  async acquire(candidates: number[], wanted: number): Promise<number[]> {
    if (candidates.length === 0 || wanted <= 0) return [];
    const reply = (await ACQUIRE.run(
      this.client,
      candidates.map((p) => this.keys.lease(p)),
      [this.writerId, String(this.ttlMs), String(wanted)],
    )) as number[];
    return reply.map((index) => candidates[Number(index) - 1]!);
  }

  /** Renews the given leases; answers those this writer no longer holds. */
  async renew(partitions: number[]): Promise<number[]> {
    if (partitions.length === 0) return [];
    const reply = (await RENEW.run(
      this.client,
      partitions.map((p) => this.keys.lease(p)),
      [this.writerId, String(this.ttlMs)],
    )) as number[];
    return partitions.filter((_, i) => Number(reply[i]) !== 1);
  }

  async release(partition: number): Promise<void> {
    await RELEASE.run(this.client, [this.keys.lease(partition)], [this.writerId]);
  }
}
