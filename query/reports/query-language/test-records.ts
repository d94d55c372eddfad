/** Small record builders shared by the unit tests. */
import type { StoredRecord } from './types.js';

export function withTags(...tagLists: string[][]): StoredRecord[] {
  return tagLists.map((tags, i) => ({ id: `r${i}`, tags }));
}

/** Ids of the records that pass `test`. */
export function idsMatching(records: readonly StoredRecord[], test: (r: StoredRecord) => boolean): string[] {
  return records.filter(test).map((r) => r.id as string);
}

/** The message of the ApiError `run` throws, with its code pair. */
export function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    const e = error as { entry?: { http: number; subcode: number }; message: string };
    if (!e.entry) throw error;
    return { code: `${e.entry.http}/${e.entry.subcode}`, message: e.message };
  }
  throw new Error('expected an ApiError');
}
