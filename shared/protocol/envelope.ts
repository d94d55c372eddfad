/**
 * The response envelope of protocol.md §5: `{meta, data}` with every meta
 * field, HTTP status equal to result_code. Built as a string because
 * versions below 2.1 are JSON numbers that must keep their `.0` (`1.0`),
 * which JSON.stringify would drop.
 */
import { randomUUID } from 'node:crypto';
import type { ApiError } from '../errors/error-catalogue.js';
import type { JsonBytesWriter } from './json-bytes.js';
import { compareVersions, parseVersion, type ApiVersion } from './endpoint-path.js';

const STRING_FROM = parseVersion('2.1');

export interface EnvelopeEndpoint {
  /** `service.action`, or `''` when the path could not be parsed. */
  name: string;
  /** Requested version, or undefined when the path could not be parsed. */
  requested?: ApiVersion;
  /** Minimum version of the implementation that served the call; undefined when none was resolved. */
  actual?: ApiVersion;
}

export interface EnvelopeMeta {
  id: string;
  trx: string;
  endpoint: EnvelopeEndpoint;
}

export function newCallId(): string {
  return randomUUID().replaceAll('-', '');
}

/** A version written as JSON: a string from 2.1 on, a number (keeping `.0`) below, per the requested version. */
function versionJson(version: ApiVersion | undefined, requested: ApiVersion | undefined): string {
  if (version === undefined) return 'null';
  if (requested !== undefined && compareVersions(requested, STRING_FROM) >= 0) return JSON.stringify(version.text);
  return `${version.major}.${version.minor}`;
}

function metaJson(meta: EnvelopeMeta, code: number, subcode: number, message: string, ok: boolean): string {
  const { endpoint } = meta;
  const requested = endpoint.requested === undefined ? '1.0' : versionJson(endpoint.requested, endpoint.requested);
  return (
    `{"id":${JSON.stringify(meta.id)},"trx":${JSON.stringify(meta.trx)},` +
    `"endpoint":{"name":${JSON.stringify(endpoint.name)},"requested_version":${requested},` +
    `"actual_version":${versionJson(endpoint.actual, endpoint.requested)}},` +
    `"result_code":${code},"result_subcode":${subcode},"result_msg":${JSON.stringify(message)},` +
    `"error_stack":${ok ? '""' : 'null'},"error_data":{}}`
  );
}

/**
 * Success envelope around an already serialised `data` (JSON text, or its
 * bytes being written), as the bytes to send: answers of megabytes are
 * encoded here once rather than handed to the HTTP layer as a string.
 */
export function successEnvelope(meta: EnvelopeMeta, data: string | JsonBytesWriter): Buffer {
  const head = `{"meta":${metaJson(meta, 200, 0, 'OK', true)},"data":`;
  return typeof data === 'string' ? Buffer.from(`${head}${data}}`) : data.finish(head, '}');
}

/** The same envelope around a `data` JSON text produced in chunks. */
export async function* streamedSuccessEnvelope(
  meta: EnvelopeMeta,
  data: AsyncIterable<Buffer>,
): AsyncGenerator<Buffer> {
  yield Buffer.from(`{"meta":${metaJson(meta, 200, 0, 'OK', true)},"data":`);
  yield* data;
  yield Buffer.from('}');
}

export function errorEnvelope(meta: EnvelopeMeta, error: ApiError): string {
  return `{"meta":${metaJson(meta, error.entry.code, error.entry.subcode, error.message, false)},"data":{}}`;
}
