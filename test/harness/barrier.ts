/**
 * Absence is proven by a barrier, never by sleeping: a sentinel written
 * after what must not be stored (or must be gone), on the same entity (so
 * the same partition, where the writer keeps stream order), is waited for;
 * once it is readable, everything written before it has been processed, and
 * the absence asserted on that read holds for good. A sleep proves nothing
 * on a slow machine and wastes time on a fast one.
 */
import { eventually, type EventuallyOptions } from './eventually.js';

/**
 * Writes the sentinel, then repeats `read` until `arrived` holds for it;
 * answers that read (the state after the barrier) to assert the absence on.
 */
export async function afterBarrier<T>(
  writeSentinel: () => Promise<unknown>,
  read: () => Promise<T>,
  arrived: (value: T) => boolean,
  options: EventuallyOptions = {},
): Promise<T> {
  await writeSentinel();
  return eventually(read, arrived, { what: 'the sentinel', ...options });
}
