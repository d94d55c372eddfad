/**
 * The one executable: `node dist/shared/launcher/main.js [all|ingest|writer|query]`
 * (default `all`, or the TARGET variable; `--help`, `--version`). Reads the
 * environment here and nowhere else, starts the target, and stops it
 * cleanly on SIGINT/SIGTERM (a second signal exits at once).
 */
import { ConfigError, configSchema, loadConfig } from '../config/config.js';
import { variableDocs } from '../config/config-variables.js';
import { createLogger } from '../observability/logger.js';
import { exitWithMistake, positionalOrExit } from './command-line.js';
import { prepareProcess } from './process-setup.js';
import { startService } from './service.js';
import { targetModules } from './target-modules.js';
import { isTargetName, TARGET_NAMES, TARGET_SUMMARIES, type TargetName } from './target.js';

const HINT = '--help lists the targets and options';

/** The target to run (the command line's, TARGET's, or all); help, version and mistakes end here. */
function targetFromCommandLine(): TargetName {
  const positional = positionalOrExit(
    process.argv.slice(2),
    () => ({
      usage: ['node dist/shared/launcher/main.js [TARGET] [OPTIONS]', 'npm run serve -- [TARGET] [OPTIONS]'],
      choices: { title: 'Targets (default: all, or the TARGET variable)', items: TARGET_SUMMARIES },
      variables: variableDocs(configSchema.shape),
    }),
    HINT,
  );
  if (positional.length > 1)
    exitWithMistake(`Expected one target, got ${positional.length}: ${positional.join(' ')}`, HINT);
  const target = positional[0] ?? process.env.TARGET ?? 'all';
  if (!isTargetName(target))
    exitWithMistake(`Unknown target "${target}": expected one of ${TARGET_NAMES.join(', ')}`, HINT);
  return target;
}

async function main(): Promise<void> {
  const target = targetFromCommandLine();
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
  const logger = createLogger({ level: config.LOG_LEVEL, name: `clearml-${target}`, format: config.LOG_FORMAT });
  let service;
  try {
    service = await startService({ target, config, logger, modules: targetModules, ...prepareProcess(target, config) });
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
