/**
 * How far V8 lets the heap grow past what was live before it starts its next
 * full collection, for the whole process (a writer thread included).
 *
 * V8 picks the factor itself from how fast it collects against how fast the
 * program allocates; under ingest's load it picked ~1.7, and the buffer
 * memory a busy process goes through counts against that slack, so the
 * ingest process marked its whole heap (~33 MB, most of it the code and
 * modules every process holds) two or three times a second, on helper threads that
 * share the machine's cores with the stores (docs/performance.md, "Full
 * collections three times a second"). A fixed factor trades memory (at most
 * that multiple of the live heap) for those collections; dead buffers stay
 * bounded by the ingest process's own collector (INGEST_GC_EXTERNAL_GROWTH_BYTES).
 */
import v8 from 'node:v8';

/** V8 reads the flag each time it sets its next limit, so it applies from the next full collection on; 0 leaves V8's own factor. */
export function setHeapGrowingPercent(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.trunc(percent)}`);
}
