/**
 * nginx in front of the service processes, with the shipped template
 * (deploy/reverse-proxy/nginx.conf) rendered under dataDir/nginx. Runs in
 * the foreground under the stack's supervisor.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { httpStatus } from '../local-stack/readiness-probes.js';
import type { SupervisedServer } from '../local-stack/supervised-server.js';
import { renderNginxConfig, type NginxConfigValues } from '../reverse-proxy/nginx-config.js';
import { startSupervised, type SupervisionContext } from './supervised-process.js';

/** Any HTTP answer (a 502 while no backend is up included) means nginx is listening. */
async function answers(url: string, timeoutMs: number): Promise<void> {
  await httpStatus(`${url}/health`, timeoutMs);
}

export async function startNginx(options: {
  binary: string;
  dataDir: string;
  values: Omit<NginxConfigValues, 'runDir' | 'user'>;
  context: SupervisionContext;
}): Promise<SupervisedServer> {
  const runDir = join(options.dataDir, 'nginx');
  const configFile = join(runDir, 'nginx.conf');
  // Started as root, nginx would hand its workers to "nobody", who cannot write runDir.
  const user = process.getuid?.() === 0 ? os.userInfo().username : undefined;
  return startSupervised(
    {
      label: 'nginx',
      binary: options.binary,
      args: ['-c', configFile, '-p', runDir, '-e', join(runDir, 'error.log'), '-g', 'daemon off;'],
      cwd: runDir,
      logFile: join(runDir, 'nginx.out'),
      url: `http://${options.values.listenHost}:${options.values.apiPort}`,
      probe: answers,
      prepare: () => writeFile(configFile, renderNginxConfig({ ...options.values, runDir, user })),
    },
    options.context,
  );
}
