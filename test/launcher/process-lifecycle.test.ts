// The built executables as operators run them: targets start, answer /health, /ready and /metrics,
// stop cleanly on SIGTERM; bad configuration stops start-up naming the variable; the `npm start`
// runner starts its own stack and leaves no process behind. Requires `npm run build` (npm test does it).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runnerEnv } from '../../deploy/bootstrap/node-smoke.js';
import { findFreePort } from '../../deploy/local-stack/local-stack.js';
import { alive, baseEnv, exited, main, runLocal, start, track } from './launched-process.js';
import { eventually } from '../harness/eventually.js';

describe('targets', () => {
  it.each(['all', 'ingest', 'writer', 'query'])(
    '%s starts, is ready, serves health and metrics, stops on SIGTERM',
    async (target) => {
      const port = await findFreePort();
      const { child, output } = start(main, [target], baseEnv({ API_PORT: String(port), GRPC_PORT: '0' }));
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200, undefined, {
        timeoutMs: 30_000,
        what: `${target} ready`,
        retryErrors: true,
      });
      expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ status: 'ok' });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain(`target="${target}"`);
      expect(metrics).toContain('process_cpu_user_seconds_total');
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(output()).not.toMatch(/"level":(50|60)/);
    },
  );

  it('refuses an unknown target', () => {
    const result = spawnSync(process.execPath, [main, 'everything'], { env: baseEnv(), encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Unknown target "everything": expected one of all, ingest, writer, query');
  });

  it('stops start-up on bad configuration, naming every bad variable', () => {
    const result = spawnSync(process.execPath, [main, 'query'], {
      env: baseEnv({ API_PORT: 'eighty', REDIS_URL: 'localhost' }),
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('API_PORT: expected a TCP port number (1-65535) for the HTTP API, got "eighty"');
    expect(result.stderr).toContain(
      'REDIS_URL: expected a URL like redis://127.0.0.1:6379, or a comma-separated list of them, got "localhost"',
    );
  });

  it('fails start-up loudly when a store it needs does not answer', async () => {
    const deadPort = await findFreePort();
    const broken = spawnSync(process.execPath, [main, 'query'], {
      env: baseEnv({ API_PORT: '0', INFLUX_URL: `http://127.0.0.1:${deadPort}` }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(broken.status).toBe(1);
    expect(broken.stdout + broken.stderr).toContain('start-up failed');
  });
});

describe('npm start runner', () => {
  it('creates credentials, starts its own stack and the API, prints the key pair, and leaves nothing behind', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-start-'));
    const [apiPort, env] = await runnerEnv(dataDir);
    const { child, output } = start(runLocal, [], env);
    await eventually(async () => output().includes('Stop with Ctrl-C.'), undefined, {
      timeoutMs: 60_000,
      what: 'the start banner',
      retryErrors: true,
    });
    const credentials = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
    expect(credentials).toHaveLength(1);
    expect(credentials[0].company).toBe('default');
    expect(output()).toContain(`access_key: ${credentials[0].access_key}`);
    expect(output()).toContain(
      `curl -s -u '${credentials[0].access_key}:${credentials[0].secret_key}' http://127.0.0.1:${apiPort}/auth.login`,
    );
    // The gRPC port it names is the one listening (GRPC_PORT 0 picked it).
    const grpcPort = Number(
      /gRPC ingest \(clearml\.events\.v1\.EventsIngest\) on 127\.0\.0\.1:(\d+)\n/.exec(output())?.[1],
    );
    expect(grpcPort).toBeGreaterThan(0);
    await new Promise<void>((resolve, reject) =>
      net
        .connect(grpcPort, '127.0.0.1', function (this: net.Socket) {
          this.end();
          resolve();
        })
        .on('error', reject),
    );
    // A clearml.conf `api` section as the SDK reads it, with this key pair.
    expect(output()).toContain(
      [
        'api {',
        `      api_server: http://127.0.0.1:${apiPort}`,
        '      # web_server: <the ClearML web app, if any>',
        '      # files_server: <the ClearML files server, if any>',
        '      credentials {',
        `          access_key: "${credentials[0].access_key}"`,
        `          secret_key: "${credentials[0].secret_key}"`,
        '      }',
        '  }',
      ].join('\n'),
    );
    const login = await fetch(`http://127.0.0.1:${apiPort}/auth.login`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${credentials[0].access_key}:${credentials[0].secret_key}`).toString('base64')}`,
      },
    });
    expect(login.status).toBe(200);

    const stackPids = spawnSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .map((p) => Number(p.trim()))
      .filter((p) => p > 0);
    expect(stackPids.length).toBeGreaterThanOrEqual(3);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    for (const pid of stackPids) expect(alive(pid), `stack process ${pid} still running`).toBe(false);
  }, 120_000);

  it('stops, stores included, when the process that started it goes away (SIGTERM to `npm start` does not reach it)', async () => {
    const [, env] = await runnerEnv(mkdtempSync(path.join(os.tmpdir(), 'clearml-start-')));
    // A parent in between, as npm is: it exits on SIGTERM without passing the signal on.
    const parent = track(
      spawn('sh', ['-c', `"${process.execPath}" "${runLocal}"; true`], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    let output = '';
    parent.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    await eventually(async () => output.includes('Stop with Ctrl-C.'), undefined, {
      timeoutMs: 60_000,
      what: 'the start banner',
      retryErrors: true,
    });
    const [runner] = spawnSync('ps', ['-o', 'pid=', '--ppid', String(parent.pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .map((p) => Number(p.trim()))
      .filter((p) => p > 0);
    expect(runner).toBeDefined();
    const stackPids = spawnSync('ps', ['-o', 'pid=', '--ppid', String(runner)], { encoding: 'utf8' })
      .stdout.split('\n')
      .map((p) => Number(p.trim()))
      .filter((p) => p > 0);
    expect(stackPids.length).toBeGreaterThanOrEqual(3);
    parent.kill('SIGKILL');
    await eventually(async () => !alive(runner!) && stackPids.every((pid) => !alive(pid)), undefined, {
      timeoutMs: 30_000,
      what: 'the orphaned runner and its stack to stop',
      retryErrors: true,
    });
  }, 120_000);
});
