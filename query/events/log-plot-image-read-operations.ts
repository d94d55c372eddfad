/**
 * The log, plot and debug-image operations of the query target
 * (events.md §6, §7, §8), for the composition root to register.
 */
import { readOnlyOperations, type Operation } from '../../shared/protocol/operation.js';
import type { QueryDeps } from '../query-deps.js';
import { getDebugImageSampleOperation, nextDebugImageSampleOperation } from './debug-images-sample.js';
import { clearTaskLogOperation } from './logs/clear-task-log.js';
import { downloadTaskLogOperation } from './logs/download-task-log.js';
import { getTaskLogOperation } from './logs/get-task-log.js';
import { getMultiTaskPlotsOperation } from './plots-multi-task.js';
import { getPlotSampleOperation, nextPlotSampleOperation } from './plots-sample.js';
import { getTaskPlotsOperation } from './plots-task-plots.js';
import { windowOperation } from './plots-window-operation.js';

export function logPlotImageReadOperations(deps: QueryDeps): Operation[] {
  return [
    ...readOnlyOperations(
      getTaskLogOperation(deps),
      downloadTaskLogOperation(deps),
      getTaskPlotsOperation(deps),
      getMultiTaskPlotsOperation(deps),
      windowOperation(deps, 'plots'),
      getPlotSampleOperation(deps),
      nextPlotSampleOperation(deps),
      windowOperation(deps, 'debug_images'),
      getDebugImageSampleOperation(deps),
      nextDebugImageSampleOperation(deps),
    ),
    clearTaskLogOperation(deps),
  ];
}
