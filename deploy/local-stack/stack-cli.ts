/**
 * `npm run stack`: the persistent local stack on its own, for running the
 * service (or a debugger) against it. Data under DATA_DIR (default var/);
 * NATS_URL, INFLUX_URL, REDIS_URL use existing servers instead.
 */
import { startLocalStack, type LocalStack } from './local-stack.js';

let stack: LocalStack | undefined;
let stopping = false;

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Still starting: main() stops what it started once it has the handle,
  // since the servers run in their own process group and outlive us.
  if (!stack) return;
  await stack.stop();
  process.exit(code);
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name}=${raw} is not a port number (0 picks any free port)`);
  }
  return port;
}

async function main(): Promise<void> {
  stack = await startLocalStack({
    dataDir: process.env.DATA_DIR || 'var',
    natsPort: portFromEnv('NATS_PORT', 14222),
    influxPort: portFromEnv('INFLUX_PORT', 18086),
    redisPort: portFromEnv('REDIS_PORT', 16379),
    existing: { natsUrl: process.env.NATS_URL, influxUrl: process.env.INFLUX_URL, redisUrl: process.env.REDIS_URL },
    log: (line) => console.error(`[stack] ${line}`),
    // A server that dies is started again, as under `npm start`.
    restartOnExit: true,
  });
  console.log(`NATS_URL=${stack.natsUrl}`);
  console.log(`INFLUX_URL=${stack.influxUrl}`);
  console.log(`REDIS_URL=${stack.redisUrl}`);
  if (stopping) {
    await stack.stop();
    process.exit(0);
  }
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
