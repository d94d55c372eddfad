// The writer thread of an `all` process is started again after a crash, and stopped with the process.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../shared/config/config.js';
import { WriterThreadHost } from '../../shared/launcher/writer-thread-host.js';
import { createLogger } from '../../shared/observability/logger.js';
import { eventually } from '../harness/eventually.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('writer thread host', () => {
  it('starts a crashed thread again, answers for it, and stops it', { timeout: 20_000 }, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-thread-'));
    dirs.push(dataDir);
    const config = { DATA_DIR: dataDir, SHUTDOWN_PHASE_TIMEOUT_MS: 5_000 } as Config;
    const host = new WriterThreadHost(
      new URL('./fixtures/crash-once-thread.mjs', import.meta.url),
      { config, logFormat: 'json' },
      createLogger({ level: 'silent', name: 'test' }),
      2_000,
    );
    await host.component.start();
    // The first instance crashes 50 ms after it started; the second answers.
    await eventually(async () => (await host.metrics()).includes('instance_second 1'), undefined, {
      timeoutMs: 10_000,
      what: 'the restarted thread',
      retryErrors: true,
    });
    await host.readiness.check();
    await host.component.stop();
    expect(await host.metrics()).toBe('');
    await expect(host.readiness.check()).rejects.toThrow(/not running/);
  });
});
