/**
 * Failures of EventsIngest calls as gRPC answers. Every answer comes from the
 * error catalogue: the status code is the entry's `grpc`, the message is the
 * ClearML message, and trailing metadata carries the ClearML code/subcode
 * that clients branch on. Anything else is logged and answered as the
 * catalogue's internal error, so no stack or driver text reaches clients.
 */
import { Metadata, type StatusObject } from '@grpc/grpc-js';
import { apiError, GrpcStatus, isApiError, type ApiError } from '../../shared/errors/error-catalogue.js';
import { storeUnavailableAnswer } from '../../shared/stores/store-errors.js';
import type { GrpcIngestLogger } from './grpc-call-context.js';

export const RESULT_CODE_METADATA = 'clearml-result-code';
export const RESULT_SUBCODE_METADATA = 'clearml-result-subcode';

/** grpc-js throws on metadata keys outside this alphabet. */
const METADATA_KEY = /^[0-9a-z_.-]+$/;

/**
 * Returns the ApiError to answer with, logging the failure: server-side
 * (5xx) catalogue errors as warnings, unexpected errors with their stack.
 */
export function answerableError(err: unknown, logger: GrpcIngestLogger, logContext: object): ApiError {
  if (!isApiError(err)) {
    const unavailable = storeUnavailableAnswer(err);
    if (unavailable) {
      logger.warn({ ...logContext, err }, 'gRPC ingest call met an unavailable store');
      return unavailable;
    }
    logger.error({ ...logContext, err }, 'gRPC ingest call failed unexpectedly');
    return apiError('internal_error');
  }
  const fields = { ...logContext, code: err.entry.code, subcode: err.entry.subcode, reason: err.message };
  if (err.entry.http >= 500) logger.warn(fields, 'gRPC ingest call refused');
  else logger.info(fields, 'gRPC ingest call rejected');
  return err;
}

export function grpcStatusOf(error: ApiError): StatusObject {
  const metadata = new Metadata();
  metadata.set(RESULT_CODE_METADATA, String(error.entry.code));
  metadata.set(RESULT_SUBCODE_METADATA, String(error.entry.subcode));
  // Retry-After of overload answers, as HTTP clients get it.
  for (const [name, value] of Object.entries(error.headers)) {
    const key = name.toLowerCase();
    if (METADATA_KEY.test(key)) metadata.set(key, value);
  }
  return { code: error.entry.grpc, details: wellFormed(error.message), metadata };
}

/**
 * grpc-js percent-encodes the status message with encodeURI, which throws on
 * a lone surrogate (outside any handler: the process would exit). Messages
 * echo client text, so whatever a message holds, it leaves as valid text.
 */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Chunk failures that end a StreamEvents call instead of being acknowledged. */
export function endsStream(err: unknown): boolean {
  return !isApiError(err) || err.entry.grpc === GrpcStatus.UNAUTHENTICATED;
}
