/**
 * What `npm run start:cluster` runs after building: the split deployment on
 * clustered stores (deploy/cluster-stack), data under DATA_DIR/cluster, a
 * first key pair when CREDENTIALS_FILE does not exist, nginx on
 * API_HOST:API_PORT (HTTP) and GRPC_PORT (gRPC). Every process that dies is
 * started again (with a log line). Ctrl-C or SIGTERM stops the services,
 * then the stores, each by its pid.
 */
import path from 'node:path';
import { ensureDefaultCredentials } from '../../shared/auth/credentials.js';
import { startClusterStack, type ClusterStack } from '../cluster-stack/cluster-stack.js';
import { answerCommandLine, printBanner, readConfiguration, stopOnSignalsAndOrphaning } from './runner.js';

async function main(): Promise<void> {
  answerCommandLine('npm run start:cluster');
  const { config, stackConfig } = readConfiguration();
  const created = ensureDefaultCredentials(config.CREDENTIALS_FILE);
  let stack: ClusterStack | undefined;
  let stopping = false;
  const log = (line: string) => process.stdout.write(`[cluster] ${line}\n`);
  const stop = async (code: number) => {
    if (stopping) process.exit(1);
    stopping = true;
    await stack?.stop().catch((error: unknown) => log(`stop failed: ${(error as Error).message}`));
    process.stdout.write('Stopped.\n');
    process.exit(code);
  };
  stopOnSignalsAndOrphaning(
    () => void stop(0),
    () => stopping,
  );

  const startedAt = Date.now();
  try {
    stack = await startClusterStack({
      dataDir: path.join(config.DATA_DIR, 'cluster'),
      ports: {
        api: config.API_PORT,
        grpc: config.GRPC_PORT,
        natsBase: stackConfig.NATS_PORT,
        redisBase: stackConfig.REDIS_PORT,
        influx: stackConfig.INFLUX_PORT,
      },
      listenHost: config.API_HOST,
      // The processes share the secret (generated once under DATA_DIR) and the credentials.
      serviceEnv: { DATA_DIR: config.DATA_DIR, CREDENTIALS_FILE: config.CREDENTIALS_FILE, LOG_LEVEL: config.LOG_LEVEL },
      settings: {
        redisAppendFsync: stackConfig.REDIS_APPENDFSYNC,
        natsMaxFileStoreBytes: stackConfig.NATS_MAX_FILE_STORE_BYTES,
      },
      restartOnExit: true,
      log,
    });
    if (stopping) return;
    printBanner(config, { httpPort: config.API_PORT, grpcAddress: stack.grpcAddress }, created, [
      `${stack.labels().length} processes started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (logs under ${path.join(config.DATA_DIR, 'cluster')}):`,
      ...stack.labels().map((label) => `  ${label} (pid ${stack!.pidOf(label)})`),
    ]);
  } catch (error) {
    process.stderr.write(`Start-up failed: ${(error as Error).message}\n`);
    await stop(1);
  }
}

void main();
