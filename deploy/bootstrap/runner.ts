/**
 * What `npm start` (run-local.ts) and `npm run start:cluster`
 * (run-cluster.ts) share: their settings, the banner with the base URL and
 * the first key pair, and the stop on Ctrl-C, SIGTERM or when npm goes away.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadCredentials } from '../../shared/auth/credentials.js';
import { ConfigError, configSchema, loadConfig, type Config } from '../../shared/config/config.js';
import { variableDocs } from '../../shared/config/config-variables.js';
import { exitWithMistake, positionalOrExit } from '../../shared/launcher/command-line.js';

const portNumber = z.coerce
  .number({ error: 'expected a TCP port number (1-65535)' })
  .int({ error: 'expected a TCP port number (1-65535)' })
  .min(1, { error: 'expected a TCP port number (1-65535)' })
  .max(65535, { error: 'expected a TCP port number (1-65535)' });

/** Settings of the local stack only (docs/configuration.md, "Local stack"). */
export const stackSettings = z.object({
  NATS_PORT: portNumber
    .default(14222)
    .meta({ description: "Port of the stack's nats-server (a cluster's first node)" }),
  INFLUX_PORT: portNumber.default(18086).meta({ description: "Port of the stack's influxd" }),
  REDIS_PORT: portNumber
    .default(16379)
    .meta({ description: "Port of the stack's redis-server (a cluster's first node)" }),
  REDIS_APPENDFSYNC: z
    .enum(['always', 'everysec', 'no'], { error: 'expected always, everysec or no' })
    .default('everysec')
    .meta({ description: "Redis appendfsync of the stack's servers: always, everysec or no" }),
  NATS_MAX_FILE_STORE_BYTES: z.coerce
    .number({ error: 'expected a number of bytes' })
    .int({ error: 'expected a number of bytes' })
    .positive({ error: 'expected a number of bytes' })
    .default(10 * 1024 ** 3)
    .meta({ description: "JetStream storage cap (max_file_store) of the stack's nats-server" }),
});

/** How often the runner checks that the process that started it (npm) is still there. */
const PARENT_CHECK_MS = 500;

export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/**
 * Answers `--help` and `--version` (and refuses arguments) before anything
 * starts; `command` is how the user ran it (`npm start`).
 */
export function answerCommandLine(command: string): void {
  const hint = `${command} -- --help lists the options`;
  const positional = positionalOrExit(
    process.argv.slice(2),
    () => ({
      usage: [`${command} [-- OPTIONS]`],
      variables: [...variableDocs(configSchema.shape), ...variableDocs(stackSettings.shape)],
    }),
    hint,
  );
  if (positional.length > 0) exitWithMistake(`${command} takes no arguments, got: ${positional.join(' ')}`, hint);
}

export function readConfiguration(): { config: Readonly<Config>; stackConfig: z.infer<typeof stackSettings> } {
  try {
    const config = loadConfig(process.env);
    const stackConfig = stackSettings.safeParse(
      Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== '')),
    );
    if (!stackConfig.success) {
      fail(
        `Invalid configuration:\n${stackConfig.error.issues.map((issue) => `  - ${String(issue.path[0])}: ${issue.message}`).join('\n')}`,
      );
    }
    return { config, stackConfig: stackConfig.data };
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

/** Where clients reach the service: the HTTP API's port, gRPC's host:port. */
export interface Listening {
  httpPort: number;
  grpcAddress: string;
}

export function printBanner(
  config: Readonly<Config>,
  listening: Listening,
  created: boolean,
  extra: string[] = [],
): void {
  const first = firstCredential(config.CREDENTIALS_FILE);
  const base = `http://${config.API_HOST}:${listening.httpPort}`;
  const lines = [
    '',
    `ClearML events & reports API ready on ${base}`,
    `gRPC ingest (clearml.events.v1.EventsIngest) on ${listening.grpcAddress}`,
    ...extra,
    `${created ? 'Created' : 'Using'} credentials in ${config.CREDENTIALS_FILE} (company "${first.company}"):`,
    `  access_key: ${first.access_key}`,
    `  secret_key: ${first.secret_key}`,
    'Log in:',
    `  curl -s -u '${first.access_key}:${first.secret_key}' ${base}/auth.login`,
    'For the ClearML SDK, in ~/clearml.conf:',
    ...clearmlConf(base, first).map((line) => `  ${line}`),
    'Stop with Ctrl-C.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

/**
 * The `api` section of clearml.conf as the SDK reads it (HOCON; quoted
 * strings are JSON's). This service serves neither the web app nor files:
 * those two lines stay comments until there is a ClearML server to name.
 */
export function clearmlConf(apiServer: string, credential: { access_key: string; secret_key: string }): string[] {
  return [
    'api {',
    `    api_server: ${apiServer}`,
    '    # web_server: <the ClearML web app, if any>',
    '    # files_server: <the ClearML files server, if any>',
    '    credentials {',
    `        access_key: ${JSON.stringify(credential.access_key)}`,
    `        secret_key: ${JSON.stringify(credential.secret_key)}`,
    '    }',
    '}',
  ];
}

function firstCredential(file: string): { access_key: string; secret_key: string; company: string } {
  loadCredentials(file); // validates the whole file first
  return (
    JSON.parse(readFileSync(file, 'utf8')) as Array<{ access_key: string; secret_key: string; company: string }>
  )[0]!;
}

/**
 * Calls `stop` on SIGINT and SIGTERM (a second one is the caller's "exit
 * now"), and when the parent process (npm) goes away while not already
 * stopping: npm exits on SIGTERM without passing it on.
 */
export function stopOnSignalsAndOrphaning(stop: () => void, isStopping: () => boolean): void {
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const parent = process.ppid;
  const orphanCheck = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphanCheck);
    if (!isStopping()) stop();
  }, PARENT_CHECK_MS);
  orphanCheck.unref();
}
