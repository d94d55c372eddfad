/**
 * The service under test as operators run it: the built `all` target as a
 * child process (so a crash is an exit the fuzzer can count), on free ports
 * of 127.0.0.1, with two companies' credentials, its own stream, key and
 * database prefixes, and small body limits so that oversize input is cheap.
 * After an exit it can be started again on the same ports and prefixes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../deploy/local-stack/local-stack.js';
import type { FuzzCredential } from './fuzz-world.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The fuzzer runs from dist/test/fuzz (npm run fuzz) or from test/fuzz (vitest): find the built launcher either way. */
const launcher = root.endsWith(`${path.sep}dist`)
  ? path.join(root, 'shared/launcher/main.js')
  : path.join(root, 'dist/shared/launcher/main.js');

export interface StackUrls {
  natsUrl: string;
  influxUrl: string;
  redisUrl: string;
}

export interface ServiceSettings {
  maxBodyBytes: number;
  maxLineBytes: number;
  partitions: number;
  /** More environment for the service (companion mode's ClearML server, fuzz-companion.ts). */
  env?: Record<string, string>;
}

export interface CrashRecord {
  at: number;
  code: number | null;
  signal: string | null;
  /** Last lines the process wrote before it exited. */
  tail: string[];
}

export class FuzzService {
  readonly credentials: Record<'a' | 'b', FuzzCredential>;
  readonly authSecret = randomBytes(24).toString('hex');
  readonly prefix = `fz${randomBytes(4).toString('hex')}`;
  readonly crashes: CrashRecord[] = [];
  apiPort = 0;
  grpcPort = 0;
  private child?: ChildProcess;
  private readonly tail: string[] = [];
  private readonly log: WriteStream;
  private stopping = false;
  private ready = false;

  constructor(
    private readonly stack: StackUrls,
    private readonly dataDir: string,
    readonly settings: ServiceSettings,
  ) {
    mkdirSync(dataDir, { recursive: true });
    const credential = (company: string): FuzzCredential => ({
      access_key: `AK${randomBytes(6).toString('hex')}`,
      secret_key: `sk-${randomBytes(12).toString('hex')}`,
      company,
      user: `user-${company}`,
    });
    this.credentials = { a: credential(`company-a-${this.prefix}`), b: credential(`company-b-${this.prefix}`) };
    writeFileSync(path.join(dataDir, 'credentials.json'), JSON.stringify(Object.values(this.credentials)));
    this.log = createWriteStream(path.join(dataDir, 'service.log'));
  }

  get logFile(): string {
    return path.join(this.dataDir, 'service.log');
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Alive and past /ready since its last start: requests sent now are the service's to answer. */
  get serving(): boolean {
    return this.alive && this.ready;
  }

  env(): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      API_HOST: '127.0.0.1',
      API_PORT: String(this.apiPort),
      GRPC_PORT: String(this.grpcPort),
      DATA_DIR: path.join(this.dataDir, 'service'),
      CREDENTIALS_FILE: path.join(this.dataDir, 'credentials.json'),
      AUTH_SECRET: this.authSecret,
      NATS_URL: this.stack.natsUrl,
      INFLUX_URL: this.stack.influxUrl,
      REDIS_URL: this.stack.redisUrl,
      NATS_STREAM_PREFIX: this.prefix,
      REDIS_KEY_PREFIX: this.prefix,
      INFLUX_DB: this.prefix,
      NATS_PARTITIONS: String(this.settings.partitions),
      MAX_BODY_BYTES: String(this.settings.maxBodyBytes),
      MAX_LINE_BYTES: String(this.settings.maxLineBytes),
      LOG_LEVEL: 'warn',
      ...this.settings.env,
    };
  }

  async start(readyWithinMs = 60_000): Promise<void> {
    if (this.apiPort === 0) [this.apiPort, this.grpcPort] = await Promise.all([findFreePort(), findFreePort()]);
    this.ready = false;
    // Source maps: the stacks the service logs name TypeScript lines, which the report quotes as causes.
    const child = spawn(process.execPath, ['--enable-source-maps', launcher, 'all'], {
      env: this.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.log.write(chunk);
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.tail.push(line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
        if (this.tail.length > 40) this.tail.shift();
      }
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.crashes.push({ at: Date.now(), code, signal, tail: [...this.tail] });
    });
    const deadline = Date.now() + readyWithinMs;
    for (;;) {
      if (!this.alive)
        throw new Error(
          `service exited during start-up (${child.exitCode ?? child.signalCode}):\n${this.tail.join('\n')}`,
        );
      const ready = await fetch(`http://127.0.0.1:${this.apiPort}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) {
        this.ready = true;
        return;
      }
      if (Date.now() > deadline)
        throw new Error(`service not ready within ${readyWithinMs} ms:\n${this.tail.join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** /health answers 200 within the deadline. */
  async healthy(deadlineMs = 5_000): Promise<boolean> {
    if (!this.alive) return false;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    try {
      return (await fetch(`http://127.0.0.1:${this.apiPort}/health`, { signal: controller.signal })).status === 200;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise((resolve) => this.log.end(resolve));
  }

  /** After a crash: start again (same ports, same prefixes, so the stream and its consumers carry on). */
  async restart(): Promise<void> {
    if (this.alive) return;
    await this.start();
  }
}
