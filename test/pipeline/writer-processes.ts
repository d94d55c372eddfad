/**
 * Writer processes for the scale-out tests: the built launcher's `writer`
 * target as child processes of the test (so that one can be paused with
 * SIGSTOP, or stopped with SIGTERM, by the pid the test started), on the
 * stores and prefixes of a test harness, each with its own log file, read
 * back for the batches it reports at debug level.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { findFreePort } from '../../deploy/local-stack/free-port.js';
import { ServiceProcess } from '../faults/service-process.js';
import { parsePrometheusText } from '../harness/prometheus-text.js';

export class WriterProcess {
  private constructor(
    readonly name: string,
    readonly process: ServiceProcess,
    private readonly logFile: string,
  ) {}

  /** Starts a writer (resolves once its /ready answers 200) with the harness environment and `extra` on top. */
  static async start(
    name: string,
    env: Record<string, string>,
    dataDir: string,
    extra: Record<string, string> = {},
  ): Promise<WriterProcess> {
    const port = await findFreePort();
    const processEnv = {
      ...env,
      PATH: process.env.PATH ?? '',
      API_PORT: String(port),
      GRPC_PORT: String(await findFreePort()),
      DATA_DIR: path.join(dataDir, name),
      LOG_LEVEL: 'debug',
      ...extra,
    };
    const logDir = path.join(dataDir, name, 'logs');
    const child = new ServiceProcess('writer', `http://127.0.0.1:${port}`, processEnv, logDir);
    const writer = new WriterProcess(name, child, path.join(logDir, 'writer.log'));
    await child.start();
    return writer;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Partitions it consumes now (its clearml_writer_partitions_owned gauge). */
  async owned(): Promise<number> {
    const response = await fetch(`${this.process.baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const sample = parsePrometheusText(await response.text()).samples.find(
      (s) => s.name === 'clearml_writer_partitions_owned',
    );
    return sample?.value ?? 0;
  }

  /** Every batch it reported: stored, or abandoned partway (with when its store calls were issued). */
  batches(): BatchRecord[] {
    const out: BatchRecord[] = [];
    for (const line of readFileSync(this.logFile, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg !== 'batch stored' && entry.msg !== 'batch abandoned') continue;
      if (typeof entry.issuedFrom !== 'number' || typeof entry.issuedTo !== 'number') continue;
      out.push({
        writer: this.name,
        partition: entry.partition as number,
        outcome: entry.msg === 'batch stored' ? 'stored' : 'abandoned',
        issuedFrom: entry.issuedFrom,
        issuedTo: entry.issuedTo,
        seqs: entry.seqs as [number, number],
      });
    }
    return out;
  }

  /** Lines of its log that say a partition was lost or given up (for failure messages). */
  logLines(pattern: RegExp): string[] {
    return readFileSync(this.logFile, 'utf8')
      .split('\n')
      .filter((line) => pattern.test(line));
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}

export interface BatchRecord {
  writer: string;
  partition: number;
  outcome: 'stored' | 'abandoned';
  /** Epoch ms of the batch's first and last store call (the acknowledgement is the last of a stored batch). */
  issuedFrom: number;
  issuedTo: number;
  seqs: [number, number];
}

/** Pairs of batches of different writers on one partition whose store calls were issued in overlapping intervals. */
export function overlappingBatches(records: readonly BatchRecord[]): Array<[BatchRecord, BatchRecord]> {
  const overlaps: Array<[BatchRecord, BatchRecord]> = [];
  const byPartition = new Map<number, BatchRecord[]>();
  for (const r of records) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r]);
  for (const list of byPartition.values()) {
    list.sort((a, b) => a.issuedFrom - b.issuedFrom);
    // Sorted by start: a batch overlaps an earlier one exactly when it starts before the latest end so far.
    let latest: BatchRecord | undefined;
    for (const r of list) {
      if (latest && r.issuedFrom <= latest.issuedTo && r.writer !== latest.writer) overlaps.push([latest, r]);
      if (!latest || r.issuedTo > latest.issuedTo) latest = r;
    }
  }
  return overlaps;
}

/**
 * An InfluxDB in front of InfluxDB that answers every /write `delayMs` late
 * (the write itself reaches influxd at once): a writer behind it spends most
 * of its time between issuing a batch's first write and its next step,
 * which is where a pause hurts.
 */
export interface SlowInflux {
  readonly url: string;
  /** /write requests that reached influxd and whose answer is being held back. */
  readonly held: number;
  close(): Promise<void>;
}

export async function startSlowInflux(target: string, delayMs: number): Promise<SlowInflux> {
  const upstream = new URL(target);
  let held = 0;
  const server = http.createServer((req, res) => {
    const forward = http.request(
      { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const send = () => res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
          if (!req.url?.startsWith('/write')) return send();
          held++;
          setTimeout(() => {
            held--;
            send();
          }, delayMs);
        });
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get held() {
      return held;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
