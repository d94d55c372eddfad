/**
 * The one executable: `node dist/shared/launcher/main.js [all|ingest|writer|query]`
 * (default `all`, or the TARGET variable). Reads the environment here and
 * nowhere else, starts the target, and stops it cleanly on SIGINT/SIGTERM
 * (a second signal exits at once).
 */
import { ConfigError, loadConfig } from '../config/config.js';
import { createLogger } from '../observability/logger.js';
import { startService } from './service.js';
import { targetModules } from './target-modules.js';
import { isTargetName, TARGET_NAMES } from './target.js';

async function main(): Promise<void> {
  const target = process.argv[2] ?? process.env.TARGET ?? 'all';
  if (!isTargetName(target)) {
    process.stderr.write(`Unknown target "${target}": expected one of ${TARGET_NAMES.join(', ')}\n`);
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: `clearml-${target}` });
  let service;
  try {
    service = await startService({ target, config, logger, modules: targetModules });
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.exitCode = 1;
    return;
  }
  logger.info({ target, port: service.httpPort }, 'ready');
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    service
      .stop()
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

void main();
