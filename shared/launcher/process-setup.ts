/**
 * What a process that runs a target sets up besides the target itself: V8's
 * heap growth (HEAP_GROWING_PERCENT, heap-growth.ts) and, for the all target,
 * the writer's own thread (WRITER_THREAD). The launcher (main.ts) and npm
 * start's runner (deploy/bootstrap/run-local.ts) both run targets, so both
 * take it from here: until 2026-11-29 the runner started `all` without the
 * writer's thread, its writer sharing the one event loop with ingest.
 */
import type { Config } from '../config/config.js';
import { resolveLogFormat } from '../observability/logger.js';
import { setHeapGrowingPercent } from './heap-growth.js';
import type { ServiceDefinition } from './service.js';
import type { TargetName } from './target.js';

export function prepareProcess(target: TargetName, config: Readonly<Config>): Pick<ServiceDefinition, 'writerThread'> {
  setHeapGrowingPercent(config.HEAP_GROWING_PERCENT);
  if (target !== 'all' || !config.WRITER_THREAD) return {};
  return {
    writerThread: {
      entry: new URL('./writer-thread.js', import.meta.url),
      logFormat: resolveLogFormat(config.LOG_FORMAT, process.stdout.isTTY === true),
    },
  };
}
