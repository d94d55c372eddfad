/**
 * Everything one server needs on disk before it starts: its data directory,
 * its generated config file, and the command line that uses them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { influxConfigText, natsConfigText, redisConfigText, type ServerOptions } from './server-configs.js';
import type { StackServer } from './stack-servers.js';

export interface ServerCommand {
  args: string[];
  url: string;
  /** Receives the server's stdout and stderr. */
  logFile: string;
}

export async function prepareServerCommand(
  server: StackServer,
  serverDir: string,
  port: number,
  settings: ServerOptions,
): Promise<ServerCommand> {
  await mkdir(serverDir, { recursive: true });
  switch (server) {
    case 'nats': {
      const configFile = join(serverDir, 'nats-server.conf');
      await writeFile(
        configFile,
        natsConfigText({ port, storeDir: serverDir, maxFileStoreBytes: settings.natsMaxFileStoreBytes }),
      );
      return {
        args: ['-c', configFile],
        url: `nats://127.0.0.1:${port}`,
        logFile: join(serverDir, 'nats-server.log'),
      };
    }
    case 'influxdb': {
      const configFile = join(serverDir, 'influxdb.conf');
      const rpcPort = await findFreePort();
      await writeFile(
        configFile,
        influxConfigText({
          dir: serverDir,
          httpPort: port,
          rpcPort,
          fullCompactionColdDuration: settings.influxFullCompactionColdDuration,
          queryTimeout: settings.influxQueryTimeout,
        }),
      );
      return {
        args: ['-config', configFile],
        url: `http://127.0.0.1:${port}`,
        logFile: join(serverDir, 'influxd.log'),
      };
    }
    case 'redis': {
      const configFile = join(serverDir, 'redis.conf');
      const logFile = join(serverDir, 'redis-server.log');
      // Redis writes its own log lines to logFile and anything printed before
      // the config is read goes to stderr: both land in the same file.
      await writeFile(
        configFile,
        redisConfigText({ port, dir: serverDir, logFile, appendFsync: settings.redisAppendFsync }),
      );
      return { args: [configFile], url: `redis://127.0.0.1:${port}`, logFile };
    }
  }
}
