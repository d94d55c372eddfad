/**
 * The NATS connection of a process. Reconnects forever: a JetStream outage
 * makes ingest answer 503 and /ready fail, and both recover by themselves
 * when the server returns.
 *
 * `connected` follows the connection's status events. While it is false,
 * publishers must not publish: nats.js keeps what is published during a
 * reconnection attempt and sends it once that attempt succeeds, possibly
 * after the request that published it was answered 503 (docs/ingest.md).
 */
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { urlList } from '../config/url-list.js';
import { withoutCredentials } from '../config/without-credentials.js';
import type { Logger } from '../observability/logger.js';
import { withDeadline } from './deadline.js';
import { StoreUnavailableError } from './store-errors.js';

export interface NatsStore {
  readonly connection: NatsConnection;
  /** False from a disconnect until the reconnection completed. */
  readonly connected: boolean;
  /** JetStream manager whose API calls time out after the request timeout. */
  jetstreamManager(): Promise<JetStreamManager>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface NatsStoreOptions {
  url: string;
  name: string;
  /** Handshake, flush and JetStream API calls. */
  requestTimeoutMs: number;
  /** How long start-up waits for the first connection. */
  connectTimeoutMs?: number;
}

export async function connectNats(options: NatsStoreOptions, logger: Logger): Promise<NatsStore> {
  const { url, requestTimeoutMs } = options;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const connecting = connect({
    servers: urlList(url),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
    // The handshake, and the default of every JetStream API request.
    timeout: requestTimeoutMs,
  });
  const connection = await withDeadline(
    connecting,
    connectTimeoutMs,
    () => new Error(`NATS at ${withoutCredentials(url)} did not answer within ${connectTimeoutMs} ms (NATS_URL)`),
  );
  let connected = true;
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') connected = false;
      else if (status.type === 'reconnect') connected = true;
      if (status.type === 'disconnect' || status.type === 'reconnect')
        logger.warn({ nats: status.type, server: status.data }, `nats ${status.type}`);
    }
  })();
  return {
    connection,
    get connected() {
      return connected && !connection.isClosed();
    },
    jetstreamManager: () => connection.jetstreamManager({ timeout: requestTimeoutMs }),
    async ping() {
      if (connection.isClosed()) throw new StoreUnavailableError('nats', 'NATS connection closed');
      if (!connected) throw new StoreUnavailableError('nats', 'NATS is reconnecting');
      await withDeadline(
        connection.flush(),
        requestTimeoutMs,
        () =>
          new StoreUnavailableError(
            'nats',
            `NATS did not answer within ${requestTimeoutMs} ms (NATS_REQUEST_TIMEOUT_MS)`,
          ),
      );
    },
    async close() {
      if (!connection.isClosed()) await connection.drain().catch(() => connection.close());
    },
  };
}
