/**
 * The credential the current call was authenticated with, kept for the
 * length of the call so that companion mode can ask the ClearML server on
 * the caller's behalf (docs/clearml-companion.md). Entity checks run deep
 * inside operations that only pass the company along; carrying the
 * credential in the async context keeps them unchanged. The value is the
 * Authorization header as ClearML reads it (the `clearml_token_basic`
 * cookie becomes `Bearer <cookie>`, as in protocol.md §7.2) and is never
 * logged.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** Runs `work` with `authorization` as the caller's credential. */
export function withCallerCredential<T>(authorization: string | undefined, work: () => T): T {
  return authorization === undefined ? work() : current.run(authorization, work);
}

/** The Authorization header value of the call being served, if any. */
export function callerCredential(): string | undefined {
  return current.getStore();
}
