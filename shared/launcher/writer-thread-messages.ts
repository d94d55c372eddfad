/** What the `all` process and its writer thread say to each other (structured-clone messages). */
import type { Config } from '../config/config.js';
import type { ReadinessReport } from '../http/api-server.js';

export interface WriterThreadData {
  config: Config;
  /** Resolved by the main thread, which knows whether standard output is a terminal. */
  logFormat: 'json' | 'pretty';
}

export type HostRequest = { type: 'metrics'; id: number } | { type: 'ready'; id: number } | { type: 'stop' };

export type ThreadMessage =
  | { type: 'started' }
  | { type: 'failed'; message: string }
  | { type: 'metrics'; id: number; text: string }
  | { type: 'ready'; id: number; report: ReadinessReport }
  | { type: 'stopped' };
