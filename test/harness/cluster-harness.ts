/**
 * The cluster shape for tests: the same code as `npm run start:cluster`
 * (deploy/cluster-stack), on free ports in a temporary directory, with two
 * companies' key pairs. Calls go through nginx, the one base URL, like a
 * client's. Small heaps and in-flight limits: the machine runs 17 processes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startClusterStack, type ClusterStack } from '../../deploy/cluster-stack/cluster-stack.js';
import {
  apiCaller,
  basicAuthorization,
  credential,
  loginThrough,
  unique,
  type Harness,
  type TestCredential,
} from './service-harness.js';

export interface ClusterHarness extends Pick<Harness, 'baseUrl' | 'credentials' | 'basic' | 'call' | 'login'> {
  /** host:port of nginx's gRPC listener. */
  readonly grpcAddress: string;
  readonly stack: ClusterStack;
  /** The service processes' configuration (prefixes, database) beyond the stores. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startClusterHarness(
  options: {
    env?: Record<string, string>;
    log?: (line: string) => void;
    /** More key pairs in the credentials file (the cluster pass gives each test file its own companies). */ extraCredentials?: TestCredential[];
  } = {},
): Promise<ClusterHarness> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-cluster-'));
  const credentials = { a: credential(unique('company-a-')), b: credential(unique('company-b-')) };
  const credentialsFile = path.join(dataDir, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify([credentials.a, credentials.b, ...(options.extraCredentials ?? [])]));
  const suffix = randomBytes(4).toString('hex');
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    CREDENTIALS_FILE: credentialsFile,
    NATS_STREAM_PREFIX: `c${suffix}`,
    INFLUX_DB: `c${suffix}`,
    REDIS_KEY_PREFIX: `c${suffix}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    INGEST_MAX_INFLIGHT_BYTES: String(32 * 1024 * 1024),
    ...options.env,
  };
  let stack: ClusterStack;
  try {
    stack = await startClusterStack({
      dataDir,
      serviceEnv: env,
      maxHeapMb: 192,
      restartOnExit: true,
      log: options.log,
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const call = apiCaller(stack.baseUrl);
  return {
    baseUrl: stack.baseUrl,
    grpcAddress: stack.grpcAddress,
    stack,
    env,
    credentials,
    basic: basicAuthorization,
    call,
    login: (c: TestCredential) => loginThrough(call, c),
    async stop() {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
