/**
 * events.plots (events.md §7.3): pages of iterations per task through a
 * navigation state, the window events.debug_images shares
 * (navigation/window-operation.ts).
 */
import type { Operation } from '../../../shared/protocol/operation.js';
import type { QueryDeps } from '../../query-deps.js';
import { windowOperation } from '../navigation/window-operation.js';

export const plotsOperation = (deps: QueryDeps): Operation => windowOperation(deps, 'plots');
