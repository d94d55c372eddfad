/**
 * Renders deploy/reverse-proxy/nginx.conf, the shipped template, for a set
 * of ingest and query processes: the file `npm run start:cluster` runs nginx
 * with is that template with its placeholders filled, nothing else.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface NginxConfigValues {
  listenHost: string;
  apiPort: number;
  grpcPort: number;
  /** host:port of each ingest process's HTTP API. */
  ingestHttp: readonly string[];
  /** host:port of each ingest process's gRPC API. */
  ingestGrpc: readonly string[];
  /** host:port of each query process's HTTP API. */
  queryHttp: readonly string[];
  /** Where nginx keeps its pid, logs and temporary files. */
  runDir: string;
  workerProcesses?: number;
  /** Worker user: set when nginx starts as root (workers need to write runDir). */
  user?: string;
}

/** The template, from src (deploy/reverse-proxy) and from dist (dist/deploy/reverse-proxy). */
export function nginxTemplatePath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '../..');
  return path.join(path.basename(root) === 'dist' ? path.dirname(root) : root, 'deploy/reverse-proxy/nginx.conf');
}

const servers = (addresses: readonly string[], what: string) => {
  if (addresses.length === 0) throw new Error(`the nginx config needs at least one ${what} address`);
  // A process that fails is left alone for 2 s, then tried again.
  return addresses.map((address) => `    server ${address} max_fails=1 fail_timeout=2s;`).join('\n');
};

export function renderNginxConfig(
  values: NginxConfigValues,
  template = readFileSync(nginxTemplatePath(), 'utf8'),
): string {
  const fill: Record<string, string> = {
    USER: values.user ? `user ${values.user};` : '',
    WORKER_PROCESSES: String(values.workerProcesses ?? 1),
    RUN_DIR: values.runDir,
    LISTEN_HOST: values.listenHost,
    API_PORT: String(values.apiPort),
    GRPC_PORT: String(values.grpcPort),
    INGEST_HTTP_SERVERS: servers(values.ingestHttp, 'ingest HTTP'),
    INGEST_GRPC_SERVERS: servers(values.ingestGrpc, 'ingest gRPC'),
    QUERY_HTTP_SERVERS: servers(values.queryHttp, 'query HTTP'),
  };
  const text = template.replace(/@@([A-Z_]+)@@/g, (whole, name: string) => {
    const value = fill[name];
    if (value === undefined) throw new Error(`unknown placeholder ${whole} in the nginx template`);
    return value;
  });
  return text;
}
