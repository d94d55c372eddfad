/**
 * Servers the user runs (NATS_URL, INFLUX_URL, REDIS_URL): the launcher
 * starts nothing for them, it only waits until they answer.
 */
import { withoutCredentials } from '../../shared/config/without-credentials.js';
import { SERVER_NAMES, type StackServer } from './stack-servers.js';
import { probeFor, waitUntilReady } from './wait-ready.js';

const SCHEMES: Readonly<Record<StackServer, readonly string[]>> = {
  nats: ['nats', 'tls'],
  influxdb: ['http', 'https'],
  redis: ['redis', 'rediss'],
};

export async function waitForExistingServer(
  server: StackServer,
  url: string,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<string> {
  const { label, urlVar } = SERVER_NAMES[server];
  assertUsableUrl(server, url);
  // A URL may carry a password (redis://:pass@host): the terminal and its scrollback get none.
  const shown = withoutCredentials(url);
  log(`waiting for the existing ${label} at ${shown}`);
  const outcome = await waitUntilReady({ url, probe: probeFor(server, false), timeoutMs });
  if (outcome.kind !== 'ready') {
    const reason = outcome.kind === 'timeout' ? outcome.lastError : 'stopped';
    throw new Error(
      `${label} at ${shown} (${urlVar}) did not answer within ${timeoutMs} ms: ${reason}. ` +
        `Check the server, or unset ${urlVar} to let the launcher start its own.`,
    );
  }
  return url;
}

// A typo in an environment variable should fail now, not after the timeout.
function assertUsableUrl(server: StackServer, url: string): void {
  const expected = SCHEMES[server];
  // NATS and Redis take a comma-separated list (cluster seeds); NATS also bare host:port entries.
  const first = server === 'influxdb' ? url : url.split(',')[0]!.trim();
  const withScheme = server === 'nats' && !first.includes('://') ? `nats://${first}` : first;
  let scheme: string | undefined;
  try {
    scheme = new URL(withScheme).protocol.replace(/:$/, '');
  } catch {
    scheme = undefined;
  }
  if (!scheme || !expected.includes(scheme)) {
    throw new Error(
      `${SERVER_NAMES[server].urlVar}=${withoutCredentials(url)} is not a valid ${expected.join('/')} URL`,
    );
  }
}
