/**
 * The OpenAPI 3.1 description of a process's HTTP API, built at start from
 * what the process serves: its registered operations (request bodies from
 * the zod schemas that validate them), the one error catalogue, and the
 * service routes. Nothing here repeats a schema. Decisions: docs/openapi.md.
 */
import { TOKEN_COOKIE } from '../auth/authenticator.js';
import { errorCatalogue, type CatalogueEntry } from '../errors/error-catalogue.js';
import { MAX_API_VERSION } from '../protocol/endpoint-path.js';
import type { Operation, OperationRegistry } from '../protocol/operation.js';
import { requestJsonSchema, type JsonSchema } from '../protocol/request-json-schema.js';

export interface OpenApiOptions {
  registry: OperationRegistry;
  /** API_PATH_PREFIX: operations are served under it, the service routes are not. */
  pathPrefix: string;
}

const ref = (kind: 'schemas' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** protocol.md §5: every answer but a few is this envelope. */
const ENVELOPE_SCHEMAS = {
  Version: { description: 'A string from version 2.1 on, a JSON number below it', type: ['string', 'number'] },
  Meta: {
    type: 'object',
    required: ['id', 'trx', 'endpoint', 'result_code', 'result_subcode', 'result_msg', 'error_stack', 'error_data'],
    properties: {
      id: { type: 'string', description: 'Id of this call (32 hex characters)' },
      trx: { type: 'string', description: 'X-ClearML-Trx (or X-Trains-Trx) of the request, else the id' },
      endpoint: {
        type: 'object',
        required: ['name', 'requested_version', 'actual_version'],
        properties: {
          name: {
            type: 'string',
            description: '`service.action` from the path; empty when the path could not be parsed',
          },
          requested_version: ref('schemas', 'Version'),
          actual_version: {
            anyOf: [ref('schemas', 'Version'), { type: 'null' }],
            description: 'Version of the implementation that served the call',
          },
        },
      },
      result_code: { type: 'integer', description: 'The HTTP status' },
      result_subcode: { type: 'integer' },
      result_msg: { type: 'string' },
      error_stack: {
        type: ['string', 'null'],
        description: '"" on success, null on errors (no stack trace is ever sent)',
      },
      error_data: { type: 'object' },
    },
  },
  Envelope: {
    type: 'object',
    description:
      "ClearML's response envelope: `data` is the operation's answer (its fields: docs/events-read.md, docs/reports.md)",
    required: ['meta', 'data'],
    properties: { meta: ref('schemas', 'Meta'), data: { type: 'object' } },
  },
  ReadinessReport: {
    type: 'object',
    required: ['ready', 'checks'],
    properties: {
      ready: { type: 'boolean' },
      checks: {
        type: 'object',
        additionalProperties: { type: 'string', description: '"ok", or why the check failed' },
      },
    },
  },
};

const SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token from auth.login' },
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: 'access_key:secret_key of a key pair (CREDENTIALS_FILE); accepted on every operation',
  },
  cookieAuth: {
    type: 'apiKey',
    in: 'cookie',
    name: TOKEN_COOKIE,
    description:
      'The token auth.login sets for browsers; state-changing calls also need a ClearML client header (docs/protocol.md)',
  },
};
const ANY_CREDENTIALS = [{ bearerAuth: [] }, { basicAuth: [] }, { cookieAuth: [] }];
/** protocol.md §7.3: Basic normally, a still valid token to refresh it. */
const LOGIN_CREDENTIALS = [{ basicAuth: [] }, { bearerAuth: [] }, { cookieAuth: [] }];

type CatalogueId = keyof typeof errorCatalogue;

/** One response per HTTP status of the catalogue; its body lists the entries answered with that status. */
function errorResponses(): Record<string, object> {
  const byStatus = new Map<number, [CatalogueId, CatalogueEntry][]>();
  for (const [id, entry] of Object.entries(errorCatalogue) as [CatalogueId, CatalogueEntry][]) {
    byStatus.set(entry.http, [...(byStatus.get(entry.http) ?? []), [id, entry]]);
  }
  const responses: Record<string, object> = {};
  for (const [status, entries] of [...byStatus].sort(([a], [b]) => a - b)) {
    const meta = {
      anyOf: entries.map(([id, entry]) => ({
        title: id,
        description: `${entry.base} (${entry.remedy})`,
        properties: {
          result_code: { const: entry.code },
          result_subcode: { const: entry.subcode },
          result_msg: { type: 'string', examples: [entry.base] },
        },
      })),
    };
    responses[`Error${status}`] = {
      description: `Error envelope (docs/errors.md): ${entries.map(([id, entry]) => `${id} ${entry.code}/${entry.subcode}`).join(', ')}`,
      content: json({
        allOf: [
          ref('schemas', 'Envelope'),
          {
            properties: { meta: { allOf: [ref('schemas', 'Meta'), meta] }, data: { type: 'object', maxProperties: 0 } },
          },
        ],
      }),
    };
  }
  responses.UnsupportedEncoding = {
    description: 'A compressed request body: the one error that is plain text, not an envelope (protocol.md §3.2)',
    content: { 'text/plain': { schema: { type: 'string' } } },
  };
  return responses;
}

function requestBody(operation: Operation): object {
  if (operation.kind === 'stream') {
    return {
      required: true,
      content: Object.fromEntries(Object.entries(operation.bodyMediaTypes).map(([type, schema]) => [type, { schema }])),
    };
  }
  return {
    description: 'Call data; the same fields may come as query-string parameters, or as a form (protocol.md §3.1)',
    content: json(requestJsonSchema(operation.request)),
  };
}

function successResponse(operation: Operation): object {
  if (operation.rawAnswer !== undefined) {
    return {
      description: operation.rawAnswer.description,
      content: { [operation.rawAnswer.mediaType]: { schema: { type: 'string' } } },
    };
  }
  return { description: 'The envelope with the answer in `data`', content: json(ref('schemas', 'Envelope')) };
}

function operationPath(operation: Operation, errorStatuses: string[]): object {
  const [service = operation.name] = operation.name.split('.');
  const versions =
    operation.servedFrom === undefined
      ? `from version ${operation.minVersion}`
      : `from version ${operation.servedFrom} (as 1.0), ${operation.minVersion} and later`;
  return {
    post: {
      operationId: operation.name,
      tags: [service],
      summary: operation.name,
      description:
        `${operation.description ? `${operation.description}\n\n` : ''}Served ${versions}; also at \`/v<major.minor>/${operation.name}\`. ` +
        'Any method (GET, POST, PUT, PATCH, DELETE) runs the same call.' +
        (operation.readOnly ? ' Read-only: a cookie-authenticated call needs no client header.' : ''),
      'x-clearml-min-version': operation.minVersion,
      ...(operation.servedFrom === undefined ? {} : { 'x-clearml-served-from': operation.servedFrom }),
      security: operation.name === 'auth.login' ? LOGIN_CREDENTIALS : ANY_CREDENTIALS,
      requestBody: requestBody(operation),
      responses: {
        200: successResponse(operation),
        ...Object.fromEntries(errorStatuses.map((status) => [status, ref('responses', `Error${status}`)])),
        415: ref('responses', 'UnsupportedEncoding'),
      },
    },
  };
}

function serviceRoutes(): Record<string, object> {
  const open = { security: [], tags: ['service'] };
  return {
    '/health': {
      get: {
        ...open,
        operationId: 'health',
        summary: 'Liveness',
        responses: {
          200: {
            description: 'The process answers',
            content: json({ type: 'object', properties: { status: { const: 'ok' } } }),
          },
        },
      },
    },
    '/ready': {
      get: {
        ...open,
        operationId: 'ready',
        summary: 'Readiness: every store and stream this process needs answers',
        responses: {
          200: { description: 'Ready', content: json(ref('schemas', 'ReadinessReport')) },
          503: { description: 'Not ready', content: json(ref('schemas', 'ReadinessReport')) },
        },
      },
    },
    '/metrics': {
      get: {
        ...open,
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        responses: {
          200: { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    '/openapi.json': {
      get: {
        ...open,
        operationId: 'openapi',
        summary: 'This document',
        responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } },
      },
    },
  };
}

export function openApiDocument(options: OpenApiOptions): object {
  const errors = errorResponses();
  const errorStatuses = Object.keys(errors)
    .filter((name) => name.startsWith('Error'))
    .map((name) => name.slice('Error'.length));
  const operations = options.registry.list();
  return {
    openapi: '3.1.0',
    info: {
      title: 'ClearML events and reports API',
      version: MAX_API_VERSION,
      description:
        'The ClearML-compatible events and reports API this process serves (docs/protocol.md). ' +
        'Every answer is the ClearML envelope {meta, data}; errors come from one catalogue (docs/errors.md). ' +
        'Request fields are documented as clients should send them; like ClearML, the server also converts numeric strings and reads booleans by truthiness.',
    },
    tags: [...new Set(operations.map((o) => o.name.split('.')[0]!))].map((name) => ({ name })),
    security: ANY_CREDENTIALS,
    paths: {
      ...Object.fromEntries(
        operations.map((operation) => [
          `${options.pathPrefix}/${operation.name}`,
          operationPath(operation, errorStatuses),
        ]),
      ),
      ...serviceRoutes(),
    },
    components: { schemas: ENVELOPE_SCHEMAS, responses: errors, securitySchemes: SECURITY_SCHEMES },
  };
}
