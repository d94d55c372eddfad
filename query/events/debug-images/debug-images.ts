/**
 * events.debug_images (events.md §8.1): pages of iterations per task
 * through a navigation state, the window events.plots shares
 * (navigation/window-operation.ts), with the recycled-URL rules of
 * debug-image-validity.ts.
 */
import type { Operation } from '../../../shared/protocol/operation.js';
import type { QueryDeps } from '../../query-deps.js';
import { windowOperation } from '../navigation/window-operation.js';

export const debugImagesOperation = (deps: QueryDeps): Operation => windowOperation(deps, 'debug_images');
