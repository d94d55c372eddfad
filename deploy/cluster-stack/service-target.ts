/**
 * A service target (ingest, writer, query) as a child process: the one
 * launcher, `node dist/shared/launcher/main.js <target>`, with its own
 * environment; ready when its /ready answers 200.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type ServiceTarget = 'ingest' | 'writer' | 'query';

/** The repository root, from src (deploy/cluster-stack) and from dist (dist/deploy/cluster-stack). */
export function repositoryRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = path.resolve(here, '../..');
  return path.basename(up) === 'dist' ? path.dirname(up) : up;
}

export const LAUNCHER = path.join(repositoryRoot(), 'dist/shared/launcher/main.js');

/** The launcher's command line for a target; `maxHeapMb` caps the V8 heap (small machines, tests). */
export function launcherArgs(target: ServiceTarget, maxHeapMb?: number): string[] {
  return [...(maxHeapMb ? [`--max-old-space-size=${maxHeapMb}`] : []), LAUNCHER, target];
}

export async function answersReady(url: string, timeoutMs: number): Promise<void> {
  const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(timeoutMs) });
  await response.body?.cancel();
  if (response.status !== 200) throw new Error(`/ready answered ${response.status}`);
}
