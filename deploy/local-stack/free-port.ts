/**
 * Loopback port picking. A port found free is released before the server
 * binds it, so another process may still take it in between: callers retry
 * on a bind failure. Within this process we never hand out the same port
 * twice, which keeps concurrent stacks in one test run apart.
 */
import { createServer } from 'node:net';

const LOOPBACK = '127.0.0.1';
const handedOut = new Set<number>();

export async function findFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await bindAndRelease(0);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not find a free loopback port that this process has not used already');
}

/** Whether a server could listen on 127.0.0.1:port right now. */
export async function isPortFree(port: number): Promise<boolean> {
  try {
    await bindAndRelease(port);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return false;
    throw error;
  }
}

function bindAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: LOOPBACK, port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}
