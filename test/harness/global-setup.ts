/**
 * Integration tests share one throwaway stack on free ports, in a temp
 * directory removed afterwards. NATS_URL, INFLUX_URL or REDIS_URL switch a
 * part to an existing server. A stack that cannot start fails the run: tests
 * never skip for want of a server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack, type LocalStack } from '../../deploy/local-stack/local-stack.js';
import './stack-context.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'clearml-stack-'));
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      dataDir,
      existing: {
        natsUrl: process.env.NATS_URL,
        influxUrl: process.env.INFLUX_URL,
        redisUrl: process.env.REDIS_URL,
      },
      log: (line) => console.log(`[test stack] ${line}`),
    });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  project.provide('stack', {
    natsUrl: stack.natsUrl,
    influxUrl: stack.influxUrl,
    redisUrl: stack.redisUrl,
    dataDir,
  });
  return async () => {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
