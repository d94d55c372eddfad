/**
 * The NATS connection of a process. Reconnects forever: a JetStream outage
 * makes ingest answer 503 and /ready fail, and both recover by themselves
 * when the server returns.
 */
import { connect, type NatsConnection } from 'nats';
import type { Logger } from '../observability/logger.js';

export interface NatsStore {
  readonly connection: NatsConnection;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function connectNats(url: string, name: string, logger: Logger, timeoutMs = 30_000): Promise<NatsStore> {
  const connecting = connect({
    servers: url,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`NATS at ${url} did not answer within ${timeoutMs} ms (NATS_URL)`)), timeoutMs);
  });
  let connection: NatsConnection;
  try {
    connection = await Promise.race([connecting, timeout]);
  } finally {
    clearTimeout(timer);
  }
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') logger.warn({ nats: status.type, server: status.data }, `nats ${status.type}`);
    }
  })();
  return {
    connection,
    async ping() {
      if (connection.isClosed()) throw new Error('NATS connection closed');
      await connection.flush();
    },
    async close() {
      if (!connection.isClosed()) await connection.drain().catch(() => connection.close());
    },
  };
}
