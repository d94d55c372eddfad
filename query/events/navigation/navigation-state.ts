/**
 * Server-side navigation states (events.md §7.3 to §8.3, §10): one entry
 * point for the pure state machines, plus the decision every windowed call
 * starts with. States are plain JSON objects; storing them (company-scoped,
 * 3600 s idle lifetime) is the adapter's job.
 */
export * from './plot-window-navigation.js';
export * from '../plots/plot-sample-navigation.js';
export * from '../debug-images/debug-image-sample-navigation.js';
export * from './sample-state.js';

export type WindowStateAction = 'continue' | 'rebuild' | 'create';

/**
 * events.plots / events.debug_images: continue a live state (the request's
 * metrics are ignored), rebuild it from the request's metrics under the same
 * id on `refresh` (positions back to none), or create a new one when the id
 * is absent, unknown or expired (silently: no error).
 */
export function windowStateAction(liveStateFound: boolean, refresh: boolean): WindowStateAction {
  if (!liveStateFound) return 'create';
  return refresh ? 'rebuild' : 'continue';
}

/** Idle lifetime of every navigation state. */
export const NAVIGATION_STATE_TTL_SECONDS = 3600;
