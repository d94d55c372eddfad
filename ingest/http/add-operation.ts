/**
 * events.add (events.md §2.1): one event, exactly as a batch of one. The
 * call data is the event (query-string parameters merged over the body, so
 * allow_locked and model_event may come from the query string).
 */
import { z } from 'zod';
import type { IngestService } from '../events/ingest-port.js';
import { defineOperation } from '../../shared/protocol/operation.js';
import type { IngestMetrics } from '../events/ingest-metrics.js';
import { IDEMPOTENCY_KEY_HEADER, RequestFingerprint } from '../events/request-fingerprint.js';
import { headerOf, workerHeaderOf } from './worker-header.js';

export function addOperation(deps: { ingest: IngestService; metrics?: IngestMetrics }) {
  return defineOperation({
    name: 'events.add',
    minVersion: '1.0',
    request: z.record(z.string(), z.unknown()),
    async handle(event, context) {
      // The body was read whole by the front; its declared length is what arrived.
      const declared = Number(headerOf(context.headers, 'content-length'));
      deps.metrics?.received('http', Number.isSafeInteger(declared) && declared > 0 ? declared : 0);
      // The call data (body and query string merged) is what a re-send repeats.
      const fingerprint = RequestFingerprint.of('http.add', headerOf(context.headers, IDEMPOTENCY_KEY_HEADER));
      fingerprint.update(JSON.stringify(event));
      const session = deps.ingest.begin({
        identity: context.identity,
        workerHeader: workerHeaderOf(context.headers),
        signal: context.signal,
        fingerprint,
      });
      try {
        session.add(event);
      } catch (error) {
        // Releases what the event took from the in-flight budget.
        session.discard(error);
        throw error;
      }
      return session.commit();
    },
  });
}
