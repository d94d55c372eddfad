/**
 * The one catalogue of errors the service can answer. Every error response,
 * HTTP or gRPC, is built from an entry here: nothing else invents codes.
 * Messages follow ClearML's `<Base>[ (<detail>)][: k1=v1, ...]` form
 * (protocol.md §6); `docs/errors.md` documents every entry (a test checks).
 */
import { headOf, pyRepr } from '../protocol/python-repr.js';

/** gRPC status codes (numeric, so this module imports no transport library). */
export const GrpcStatus = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface CatalogueEntry {
  readonly http: number;
  readonly code: number;
  readonly subcode: number;
  readonly grpc: number;
  /** Base message (first word capitalised, rest lower case, as ClearML writes it). */
  readonly base: string;
  /** What the caller can do about it (documentation and logs). */
  readonly remedy: string;
}

const e = (http: number, subcode: number, grpc: number, base: string, remedy: string): CatalogueEntry => ({
  http,
  code: http,
  subcode,
  grpc,
  base,
  remedy,
});

const {
  INVALID_ARGUMENT,
  NOT_FOUND,
  PERMISSION_DENIED,
  RESOURCE_EXHAUSTED,
  FAILED_PRECONDITION,
  INTERNAL,
  UNAVAILABLE,
  UNAUTHENTICATED,
} = GrpcStatus;

export const errorCatalogue = {
  // protocol.md §6: addressing and payload
  invalid_request_path: e(
    400,
    0,
    INVALID_ARGUMENT,
    'Invalid request path',
    'Address operations as /[vX.Y/]service.action',
  ),
  invalid_version: e(400, 2, INVALID_ARGUMENT, 'Invalid version', 'Use a version such as v2.23 in the path'),
  endpoint_not_found: e(
    404,
    0,
    NOT_FOUND,
    'Unable to find endpoint for name',
    'Check the operation name and the requested version',
  ),
  malformed_body: e(
    400,
    0,
    INVALID_ARGUMENT,
    'The browser (or proxy) sent a request that this server could not understand.',
    'Send a valid JSON (or JSON-lines) body',
  ),
  json_lines_not_object: e(
    400,
    0,
    INVALID_ARGUMENT,
    'json lines must contain objects, found:',
    'Send one JSON object per line',
  ),
  body_too_large: e(
    413,
    0,
    RESOURCE_EXHAUSTED,
    'Request body too large',
    'Split the request (MAX_BODY_BYTES sets the limit)',
  ),
  line_too_long: e(
    413,
    0,
    RESOURCE_EXHAUSTED,
    'Request line too long',
    'Split the event (MAX_LINE_BYTES sets the limit)',
  ),
  validation_error: e(400, 12, INVALID_ARGUMENT, 'Validation error', 'Fix the request field named in the message'),
  missing_required_fields: e(
    400,
    11,
    INVALID_ARGUMENT,
    'Missing required fields',
    'Send the fields named in the message',
  ),
  invalid_fields: e(400, 16, INVALID_ARGUMENT, 'Invalid value for fields', 'Fix the value named in the message'),
  fields_not_defined: e(
    400,
    14,
    INVALID_ARGUMENT,
    'Fields not defined for object',
    'Project only fields of the record',
  ),
  lookup_error: e(
    400,
    14,
    INVALID_ARGUMENT,
    'Lookup error (probably an invalid field name or unsupported nested field)',
    'Use a field of the record',
  ),
  malformed_regex: e(400, 21, INVALID_ARGUMENT, 'Malformed regular expression', 'Fix the regular expression'),
  batch_empty: e(400, 17, INVALID_ARGUMENT, 'Batch request contains no items', 'Send at least one event'),
  impersonation_not_allowed: e(
    400,
    6,
    PERMISSION_DENIED,
    'Impersonation error (impersonation not allowed)',
    'Remove the impersonation headers',
  ),
  request_timeout: e(
    408,
    0,
    INVALID_ARGUMENT,
    'Request timeout',
    'Send the whole request in time (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS)',
  ),
  headers_too_large: e(
    431,
    0,
    INVALID_ARGUMENT,
    'Request header fields too large',
    'Send smaller headers (at most 16 KiB in all)',
  ),

  // protocol.md §6: authentication and authorisation
  missing_credentials: e(
    401,
    20,
    UNAUTHENTICATED,
    'Unauthorized (missing credentials)',
    'Send Authorization: Basic or Bearer',
  ),
  bad_auth_header_type: e(
    401,
    10,
    UNAUTHENTICATED,
    'Unauthorized (bad authentication header type)',
    'Use the Basic or Bearer scheme',
  ),
  malformed_credentials: e(
    401,
    21,
    UNAUTHENTICATED,
    'Unauthorized (malformed credentials)',
    'Send base64 of access_key:secret_key',
  ),
  invalid_credentials: e(
    401,
    22,
    UNAUTHENTICATED,
    'Unauthorized (invalid credentials)',
    'Use a key pair from CREDENTIALS_FILE',
  ),
  invalid_token: e(401, 30, UNAUTHENTICATED, 'Invalid token', 'Log in again with auth.login'),
  forbidden_modification: e(
    403,
    21,
    PERMISSION_DENIED,
    'Forbidden (modification not allowed)',
    'Public records are read-only',
  ),
  forbidden_role: e(
    403,
    20,
    PERMISSION_DENIED,
    'Forbidden (not allowed for role)',
    'Use an identity with a permitted role',
  ),
  cookie_call_without_client_header: e(
    403,
    0,
    PERMISSION_DENIED,
    'Forbidden (cookie-authenticated call without a client header)',
    'Send X-Allegro-Client (the web UI does) or X-ClearML-Client, or authenticate with an Authorization header',
  ),

  // events.md §11
  events_not_added: e(400, 131, INVALID_ARGUMENT, 'Events not added', 'Fix the events: the message counts each reason'),
  invalid_task_id: e(400, 101, NOT_FOUND, 'Invalid task id', 'Name a task of your company'),
  invalid_model_id: e(400, 201, NOT_FOUND, 'Invalid model id', 'Name a model of your company'),
  invalid_scroll_id: e(400, 1104, INVALID_ARGUMENT, 'Invalid scroll id', 'Start again without scroll_id'),
  events_not_persisted: e(
    503,
    0,
    UNAVAILABLE,
    'Events could not be persisted, retry later',
    'Retry: the event log is unavailable',
  ),
  event_log_full: e(
    503,
    0,
    UNAVAILABLE,
    'Events could not be persisted, retry later (event log full)',
    'Retry after the Retry-After delay: the writers are behind (NATS_STREAM_MAX_BYTES sets the bound)',
  ),
  too_many_entities: e(
    413,
    0,
    RESOURCE_EXHAUSTED,
    'Too many entities in one request',
    'Split the request by task or model (INGEST_MAX_ENTITIES_PER_REQUEST sets the limit)',
  ),
  request_bodies_overloaded: e(
    429,
    0,
    RESOURCE_EXHAUSTED,
    'Too many request bodies in memory, retry later',
    'Retry after the Retry-After delay (HTTP_MAX_BUFFERED_BODY_BYTES sets the bound)',
  ),
  too_many_calls: e(
    429,
    0,
    RESOURCE_EXHAUSTED,
    'Too many calls open, retry later',
    'Retry after the Retry-After delay, or end idle calls (GRPC_MAX_OPEN_CALLS sets the bound)',
  ),
  too_many_reads: e(
    429,
    0,
    RESOURCE_EXHAUSTED,
    'Too many read calls waiting, retry later',
    "Retry after the Retry-After delay: this company's reads wait behind each other (READ_MAX_WAITING_CALLS sets the bound)",
  ),
  too_many_deletions: e(
    429,
    0,
    RESOURCE_EXHAUSTED,
    'Too many deletions waiting, retry later',
    "Retry after the Retry-After delay: this company's deletions wait behind each other (DELETE_MAX_WAITING_CALLS sets the bound)",
  ),
  writers_behind: e(
    429,
    0,
    RESOURCE_EXHAUSTED,
    'Events arrive faster than they are stored, retry later',
    'Retry after the Retry-After delay: the writers are more than INGEST_MAX_WRITER_LAG_MS behind and this company is among those sending the most',
  ),
  ingest_overloaded: e(
    429,
    0,
    RESOURCE_EXHAUSTED,
    'Too many events in flight, retry later',
    'Retry after the Retry-After delay (INGEST_MAX_INFLIGHT_BYTES sets the bound)',
  ),

  // reports.md §7
  invalid_task_status: e(
    400,
    110,
    FAILED_PRECONDITION,
    'Invalid task status',
    'Only draft reports can change their content',
  ),
  task_cannot_be_deleted: e(
    400,
    123,
    FAILED_PRECONDITION,
    'Task cannot be deleted (due to status, use force=True)',
    'Archive the report or pass force',
  ),
  not_a_report: e(400, 150, INVALID_ARGUMENT, 'Passed task is not report', 'Name a report'),
  invalid_project_id: e(400, 401, NOT_FOUND, 'Invalid project id', 'Name a project of your company'),
  project_path_too_deep: e(
    400,
    409,
    INVALID_ARGUMENT,
    'Project path exceed the maximum allowed depth',
    'Use at most 10 path segments',
  ),
  public_project_exists: e(
    400,
    414,
    INVALID_ARGUMENT,
    'Cannot create project. public project with the same name already exists',
    'Choose another project name',
  ),
  data_validation_error: e(
    400,
    800,
    INVALID_ARGUMENT,
    'Data validation error',
    'Project names need at least 3 characters',
  ),
  report_name_exists: e(
    400,
    801,
    INVALID_ARGUMENT,
    'Report with the same name already exists',
    'Choose a unique report name',
  ),

  // A read or report call met a store that did not answer in time or is unreachable (transient only: the SDK retries 503 forever).
  store_unavailable: e(
    503,
    0,
    UNAVAILABLE,
    'Store unavailable, retry later',
    'Retry: a store did not answer within its timeout (see docs/configuration.md)',
  ),

  // Companion mode (docs/clearml-companion.md): the ClearML server holds the task and model facts.
  clearml_unavailable: e(
    503,
    0,
    UNAVAILABLE,
    'ClearML server unavailable, retry later',
    'Retry: the ClearML server (CLEARML_SERVER_URL) did not answer within CLEARML_TIMEOUT_MS',
  ),

  internal_error: e(
    500,
    0,
    INTERNAL,
    'Internal server error',
    'Retry; report it if it persists (the log carries the request id)',
  ),
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorId = keyof typeof errorCatalogue;

type KeyValues = ReadonlyArray<readonly [string, unknown]> | Record<string, unknown>;

/**
 * Longest message an error carries. Messages echo client values (ids, names,
 * field paths) and a client value can be megabytes: the answer, the log line
 * and the client's own error report stay small (docs/protocol.md).
 */
export const MAX_MESSAGE_CHARS = 16 * 1024;

/** Renders a value the way ClearML's messages do: lists as `(a, b)`; stops once past `budget` characters. */
function renderValue(value: unknown, budget = MAX_MESSAGE_CHARS): string {
  if (Array.isArray(value)) {
    const items: string[] = [];
    let length = 0;
    for (const item of value) {
      if (length > budget) break;
      const text = renderValue(item, budget - length);
      items.push(text);
      length += text.length + 2;
    }
    return `(${items.join(', ')})`;
  }
  if (value === null || value === undefined) return 'None';
  // Objects from call data have no prototype (no toString); they are never meant to print as [object Object].
  if (typeof value === 'object') return pyRepr(value, budget);
  return String(value);
}

function bounded(message: string): string {
  return message.length > MAX_MESSAGE_CHARS ? `${headOf(message, MAX_MESSAGE_CHARS)}...` : message;
}

export function formatMessage(base: string, detail?: string, kv?: KeyValues): string {
  let message = base;
  if (detail !== undefined && detail !== '') message += ` (${detail})`;
  const pairs = kv === undefined ? [] : Array.isArray(kv) ? kv : Object.entries(kv);
  if (pairs.length > 0) message += `: ${pairs.map(([k, v]) => `${k}=${renderValue(v)}`).join(', ')}`;
  return message;
}

export class ApiError extends Error {
  readonly entry: CatalogueEntry;
  /** Extra response headers (Retry-After for overload answers). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly id: ErrorId,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(bounded(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.entry = errorCatalogue[id];
    this.headers = options.headers ?? {};
  }

  get httpStatus(): number {
    return this.entry.http;
  }
}

/** Builds an error from its catalogue entry: `apiError('validation_error', 'field is required!')`. */
export function apiError(
  id: ErrorId,
  detail?: string,
  kv?: KeyValues,
  options?: { cause?: unknown; headers?: Record<string, string> },
): ApiError {
  return new ApiError(id, formatMessage(errorCatalogue[id].base, detail, kv), options);
}

/** An error whose whole message is given (the base is not repeated), for messages the contract spells out in full. */
export function apiErrorWithMessage(id: ErrorId, message: string): ApiError {
  return new ApiError(id, message);
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
