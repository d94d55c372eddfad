/**
 * Prints deploy/reverse-proxy/nginx.conf rendered for your own processes:
 *   node dist/deploy/reverse-proxy/nginx-config-cli.js --run-dir var/nginx \
 *     --ingest 127.0.0.1:8108 --ingest-grpc 127.0.0.1:8109 --query 127.0.0.1:8208 > var/nginx/nginx.conf
 * Each of --ingest, --ingest-grpc and --query may be repeated.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { renderNginxConfig } from './nginx-config.js';

const { values } = parseArgs({
  options: {
    ingest: { type: 'string', multiple: true, default: [] },
    'ingest-grpc': { type: 'string', multiple: true, default: [] },
    query: { type: 'string', multiple: true, default: [] },
    'run-dir': { type: 'string', default: 'var/nginx' },
    listen: { type: 'string', default: '127.0.0.1' },
    'api-port': { type: 'string', default: '8008' },
    'grpc-port': { type: 'string', default: '8009' },
    // Started as root, nginx hands its workers to "nobody", who may not write the run directory.
    user: { type: 'string', default: process.getuid?.() === 0 ? os.userInfo().username : undefined },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write(
    'Usage: nginx-config-cli.js --ingest HOST:PORT... --ingest-grpc HOST:PORT... --query HOST:PORT... [--run-dir DIR] [--listen HOST] [--api-port N] [--grpc-port N] [--user NAME]\n',
  );
  process.exit(0);
}
try {
  process.stdout.write(
    renderNginxConfig({
      listenHost: values.listen,
      apiPort: Number(values['api-port']),
      grpcPort: Number(values['grpc-port']),
      ingestHttp: values.ingest,
      ingestGrpc: values['ingest-grpc'],
      queryHttp: values.query,
      runDir: path.resolve(values['run-dir']),
      user: values.user,
    }),
  );
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
