/**
 * A TCP proxy in front of the gRPC port that a test can use to break a
 * client's connection at a chosen moment: first swallow what the server
 * sends (the client then holds chunks the server has persisted but never
 * acknowledged), then cut every connection.
 */
import net from 'node:net';

export interface CuttableProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** From now on, bytes from the server are dropped (the connections stay open). */
  swallowReplies(): void;
  /** Destroys every open connection and forwards normally again. */
  cut(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const open = new Set<net.Socket>();
  let swallowing = false;
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    open.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (bytes: Buffer) => {
      if (!swallowing) client.write(bytes);
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get accepted() {
      return accepted;
    },
    swallowReplies() {
      swallowing = true;
    },
    cut() {
      for (const socket of open) socket.destroy();
      open.clear();
      swallowing = false;
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
