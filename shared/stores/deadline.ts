/**
 * A promise that settles like `promise`, or rejects with `timedOut()` when
 * `ms` pass first. The work behind `promise` is not cancelled: callers use
 * it where the work cannot be (a flush, a handshake) or is harmless to
 * finish late (a readiness probe).
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut()), ms);
    }),
  ]);
}
