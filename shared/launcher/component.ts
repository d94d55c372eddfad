/**
 * Lifecycle of the parts of a process. Start: stores, then workers, then
 * fronts (so nothing is served before it can be answered). Stop, in
 * reverse and phase by phase with a timeout each: stop accepting (fronts),
 * drain in-flight work (workers), close clients (stores).
 */
export type Phase = 'store' | 'worker' | 'front';

export interface Component {
  readonly name: string;
  readonly phase: Phase;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A readiness check: resolves when the dependency answers, rejects with the reason otherwise. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}
