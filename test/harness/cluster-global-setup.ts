/**
 * The cluster pass (issue 12, item 3): the public-API scenario files run a
 * second time against the split deployment on clustered stores, started by
 * the same code as `npm run start:cluster` (test/harness/cluster-harness.ts).
 * One cluster serves the whole pass. Its credentials file holds PAIRS pairs
 * of companies; each harness a test file starts takes a pair of its own
 * (test/harness/service-harness.ts), so that files see only their own data,
 * as they do against the in-process service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { credential, unique } from './service-harness.js';
import { startClusterHarness } from './cluster-harness.js';
import './stack-context.js';

export const CLUSTER_CREDENTIAL_PAIRS = 32;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pairs = Array.from({ length: CLUSTER_CREDENTIAL_PAIRS }, () => ({
    a: credential(unique('company-a-')),
    b: credential(unique('company-b-')),
  }));
  // Plot validation on, as the plots scenario file needs (the other files pass either way). The pass's files share
  // the cluster's writers on two cores: the production bound on their lag would refuse a file's company at random.
  const cluster = await startClusterHarness({
    env: { PLOT_VALIDATION: 'true', INGEST_MAX_WRITER_LAG_MS: '60000' },
    extraCredentials: pairs.flatMap((p) => [p.a, p.b]),
    log: (line) => console.log(`[cluster] ${line}`),
  });
  const claims = mkdtempSync(path.join(os.tmpdir(), 'clearml-cluster-claims-'));
  project.provide('stack', {
    natsUrl: cluster.stack.natsUrl,
    influxUrl: cluster.stack.influxUrl,
    redisUrl: cluster.stack.redisUrl,
    dataDir: claims,
  });
  project.provide('cluster', {
    baseUrl: cluster.baseUrl,
    grpcAddress: cluster.grpcAddress,
    env: cluster.env,
    pairs,
    claims,
  });
  return async () => {
    await cluster.stop();
    rmSync(claims, { recursive: true, force: true });
  };
}
