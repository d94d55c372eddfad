/**
 * What `npm start` runs after building: the local stack (NATS, InfluxDB,
 * Redis under DATA_DIR, unless NATS_URL / INFLUX_URL / REDIS_URL name
 * existing servers), a first key pair when CREDENTIALS_FILE does not exist,
 * and the `all` target on API_HOST:API_PORT. A store process that dies is
 * started again (with a log line). Ctrl-C or SIGTERM stops the service, then
 * the stack, in that order.
 */
import path from 'node:path';
import { ensureDefaultCredentials } from '../../shared/auth/credentials.js';
import { prepareProcess } from '../../shared/launcher/process-setup.js';
import { startService, type RunningService } from '../../shared/launcher/service.js';
import { targetModules } from '../../shared/launcher/target-modules.js';
import { createLogger } from '../../shared/observability/logger.js';
import { startLocalStack, type LocalStack } from '../local-stack/local-stack.js';
import { answerCommandLine, printBanner, readConfiguration, stopOnSignalsAndOrphaning } from './runner.js';

async function main(): Promise<void> {
  answerCommandLine('npm start');
  const { config, stackConfig } = readConfiguration();
  const created = ensureDefaultCredentials(config.CREDENTIALS_FILE);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'clearml-all', format: config.LOG_FORMAT });
  let stack: LocalStack | undefined;
  let service: RunningService | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) process.exit(1);
    stopping = true;
    await service?.stop().catch((error: unknown) => logger.error({ err: error }, 'service stop failed'));
    await stack?.stop().catch((error: unknown) => logger.error({ err: error }, 'stack stop failed'));
    process.stdout.write('Stopped.\n');
    process.exit(code);
  };
  stopOnSignalsAndOrphaning(
    () => void stop(0),
    () => stopping,
  );

  try {
    stack = await startLocalStack({
      dataDir: path.join(config.DATA_DIR, 'stack'),
      natsPort: stackConfig.NATS_PORT,
      influxPort: stackConfig.INFLUX_PORT,
      redisPort: stackConfig.REDIS_PORT,
      settings: {
        redisAppendFsync: stackConfig.REDIS_APPENDFSYNC,
        natsMaxFileStoreBytes: stackConfig.NATS_MAX_FILE_STORE_BYTES,
      },
      // A store that dies is started again rather than leaving the service on a dead store.
      restartOnExit: true,
      existing: {
        natsUrl: process.env.NATS_URL || undefined,
        influxUrl: process.env.INFLUX_URL || undefined,
        redisUrl: process.env.REDIS_URL || undefined,
      },
      log: (line) => process.stdout.write(`[stack] ${line}\n`),
    });
    const serviceConfig = Object.freeze({
      ...config,
      NATS_URL: stack.natsUrl,
      INFLUX_URL: stack.influxUrl,
      REDIS_URL: stack.redisUrl,
    });
    service = await startService({
      target: 'all',
      config: serviceConfig,
      logger,
      modules: targetModules,
      ...prepareProcess('all', serviceConfig),
    });
    printBanner(
      config,
      { httpPort: service.httpPort, grpcAddress: `${config.API_HOST}:${service.services.boundPorts.get('grpc')}` },
      created,
    );
  } catch (error) {
    process.stderr.write(`Start-up failed: ${(error as Error).message}\n`);
    await stop(1);
  }
}

void main();
