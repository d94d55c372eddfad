// The service on the Node.js LTS lines it supports besides the machine's (README, "Node.js
// versions"), each the npm registry's `node` package: `npm start` as built runs on it, logs in,
// takes events.add_batch and answers the reads (deploy/bootstrap/node-smoke.ts). `npm run
// check:node` also builds with each and runs the unit tests on it. Requires `npm run build`.
import { spawnSync } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';
import { CHECKED_NODE_MAJORS, nodeBinary } from '../../deploy/bootstrap/node-versions.js';
import { smokeTest } from '../../deploy/bootstrap/node-smoke.js';
import '../harness/stack-context.js';

describe('Node.js versions', () => {
  it.each(CHECKED_NODE_MAJORS)(
    'npm start runs on Node.js %i: auth.login, events.add_batch and reads',
    async (major) => {
      const binary = nodeBinary(major);
      expect(spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout).toMatch(new RegExp(`^v${major}\\.`));
      const stack = inject('stack');
      const suffix = `n${major}${Math.random().toString(16).slice(2, 8)}`;
      const version = await smokeTest(binary, {
        // The test stack's servers: the runner starts none of its own.
        env: {
          NATS_URL: stack.natsUrl,
          INFLUX_URL: stack.influxUrl,
          REDIS_URL: stack.redisUrl,
          NATS_STREAM_PREFIX: suffix,
          REDIS_KEY_PREFIX: suffix,
          INFLUX_DB: suffix,
        },
      });
      expect(version).toMatch(new RegExp(`^v${major}\\.`));
    },
    180_000,
  );
});
