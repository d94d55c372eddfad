/**
 * One server process of the stack: output to a log file, an exit we can
 * await, and a stop that escalates to SIGKILL.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  readonly pid: number;
  readonly logFile: string;
  /** Settles when the process is gone (reaped), whatever the reason. */
  readonly exited: Promise<ExitInfo>;
  hasExited(): boolean;
  stop(timeoutMs?: number): Promise<void>;
}

export async function spawnServer(options: {
  binary: string;
  args: string[];
  cwd: string;
  logFile: string;
  /** Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
}): Promise<ServerProcess> {
  const logFd = openSync(options.logFile, 'a');
  let child;
  try {
    child = spawn(options.binary, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', logFd, logFd],
      // Own process group: a Ctrl-C in the terminal must not reach the
      // servers directly, so the caller can stop the app before its stores.
      detached: true,
    });
  } finally {
    closeSync(logFd);
  }
  const spawned = child;
  let exitInfo: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    spawned.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  const pid = await new Promise<number>((resolve, reject) => {
    spawned.once('spawn', () => resolve(spawned.pid!));
    spawned.once('error', (error) => reject(new Error(`cannot run ${options.binary}: ${error.message}`)));
  });

  return {
    pid,
    logFile: options.logFile,
    exited,
    hasExited: () => exitInfo !== undefined,
    async stop(timeoutMs = 10_000) {
      if (exitInfo) return;
      signal(pid, 'SIGTERM');
      if (await exitsWithin(exited, timeoutMs)) return;
      signal(pid, 'SIGKILL');
      await exited;
    },
  };
}

/** Current size of a file (0 when absent): where this run's log lines begin. */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The last lines of a log file written after `since`, for error messages. */
export async function tailOfFile(path: string, since = 0, maxLines = 20, maxBytes = 4096): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return '(no log file)';
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(since, size - maxBytes);
    const length = Math.max(0, size - start);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, start);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    return lines.slice(-maxLines).join('\n') || '(empty log)';
  } finally {
    await handle.close();
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function exitsWithin(exited: Promise<ExitInfo>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([exited.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
