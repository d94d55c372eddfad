/**
 * What `npm start` runs after building: the local stack (NATS, InfluxDB,
 * Redis under DATA_DIR, unless NATS_URL / INFLUX_URL / REDIS_URL name
 * existing servers), a first key pair when CREDENTIALS_FILE does not exist,
 * and the `all` target on API_HOST:API_PORT. A store process that dies is
 * started again (with a log line). Ctrl-C or SIGTERM stops the service, then
 * the stack, in that order.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createDefaultCredentials, credentialsFileExists, loadCredentials } from '../../shared/auth/credentials.js';
import { ConfigError, loadConfig, type Config } from '../../shared/config/config.js';
import { startService, type RunningService } from '../../shared/launcher/service.js';
import { targetModules } from '../../shared/launcher/target-modules.js';
import { createLogger } from '../../shared/observability/logger.js';
import { startLocalStack, type LocalStack } from '../local-stack/local-stack.js';

const portNumber = z.coerce.number({ error: 'expected a TCP port number (1-65535)' }).int({ error: 'expected a TCP port number (1-65535)' }).min(1, { error: 'expected a TCP port number (1-65535)' }).max(65535, { error: 'expected a TCP port number (1-65535)' });

/** Settings of the local stack only (docs/configuration.md, "Local stack"). */
const stackSettings = z.object({
  NATS_PORT: portNumber.default(14222),
  INFLUX_PORT: portNumber.default(18086),
  REDIS_PORT: portNumber.default(16379),
  REDIS_APPENDFSYNC: z.enum(['always', 'everysec', 'no'], { error: 'expected always, everysec or no' }).default('everysec'),
  NATS_MAX_FILE_STORE_BYTES: z.coerce.number({ error: 'expected a number of bytes' }).int({ error: 'expected a number of bytes' }).positive({ error: 'expected a number of bytes' }).default(10 * 1024 ** 3),
});

/** How often the runner checks that the process that started it (npm) is still there. */
const PARENT_CHECK_MS = 500;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function readConfiguration(): { config: Readonly<Config>; stackConfig: z.infer<typeof stackSettings> } {
  try {
    const config = loadConfig(process.env);
    const stackConfig = stackSettings.safeParse(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== '')));
    if (!stackConfig.success) {
      fail(`Invalid configuration:\n${stackConfig.error.issues.map((issue) => `  - ${String(issue.path[0])}: ${issue.message}`).join('\n')}`);
    }
    return { config, stackConfig: stackConfig.data };
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

function printBanner(config: Readonly<Config>, port: number, created: boolean): void {
  const first = firstCredential(config.CREDENTIALS_FILE);
  const base = `http://${config.API_HOST}:${port}`;
  const lines = [
    '',
    `ClearML events & reports API ready on ${base}`,
    `${created ? 'Created' : 'Using'} credentials in ${config.CREDENTIALS_FILE} (company "${first.company}"):`,
    `  access_key: ${first.access_key}`,
    `  secret_key: ${first.secret_key}`,
    'Log in:',
    `  curl -s -u '${first.access_key}:${first.secret_key}' ${base}/auth.login`,
    'Stop with Ctrl-C.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

function firstCredential(file: string): { access_key: string; secret_key: string; company: string } {
  loadCredentials(file); // validates the whole file first
  return (JSON.parse(readFileSync(file, 'utf8')) as Array<{ access_key: string; secret_key: string; company: string }>)[0]!;
}

async function main(): Promise<void> {
  const { config, stackConfig } = readConfiguration();
  let created = false;
  if (!credentialsFileExists(config.CREDENTIALS_FILE)) {
    createDefaultCredentials(config.CREDENTIALS_FILE);
    created = true;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'clearml-all' });
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
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  // npm exits on SIGTERM without passing it on: a parent that went away is a stop too.
  const parent = process.ppid;
  const orphanCheck = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphanCheck);
    if (!stopping) void stop(0);
  }, PARENT_CHECK_MS);
  orphanCheck.unref();

  try {
    stack = await startLocalStack({
      dataDir: path.join(config.DATA_DIR, 'stack'),
      natsPort: stackConfig.NATS_PORT,
      influxPort: stackConfig.INFLUX_PORT,
      redisPort: stackConfig.REDIS_PORT,
      settings: { redisAppendFsync: stackConfig.REDIS_APPENDFSYNC, natsMaxFileStoreBytes: stackConfig.NATS_MAX_FILE_STORE_BYTES },
      // A store that dies is started again rather than leaving the service on a dead store.
      restartOnExit: true,
      existing: { natsUrl: process.env.NATS_URL || undefined, influxUrl: process.env.INFLUX_URL || undefined, redisUrl: process.env.REDIS_URL || undefined },
      log: (line) => process.stdout.write(`[stack] ${line}\n`),
    });
    const serviceConfig = Object.freeze({ ...config, NATS_URL: stack.natsUrl, INFLUX_URL: stack.influxUrl, REDIS_URL: stack.redisUrl });
    service = await startService({ target: 'all', config: serviceConfig, logger, modules: targetModules });
    printBanner(config, service.httpPort, created);
  } catch (error) {
    process.stderr.write(`Start-up failed: ${(error as Error).message}\n`);
    await stop(1);
  }
}

void main();
