/**
 * Request path → operation name and requested version (protocol.md §2.1, §2.3).
 */
import { apiError, apiErrorWithMessage } from '../errors/error-catalogue.js';

export const MAX_API_VERSION = '2.31';

/** A version as (major, minor) plus its text, for ordering and for echoing in meta. */
export interface ApiVersion {
  readonly major: number;
  readonly minor: number;
  readonly text: string;
}

// The version is two digits or more, or digits, a dot, digits: written so that no two
// quantifiers can share a digit (`\d+\.?\d+` rescanned a long run of digits: 0.45 s for 16 KB).
const PATH = /^\/?(?:v(\d+(?:\.\d+|\d))\/)?([A-Za-z_][A-Za-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_]+)\/?$/;

export function parseVersion(text: string): ApiVersion {
  const [major, minor = '0'] = text.split('.');
  return { major: Number(major), minor: Number(minor), text };
}

export function compareVersions(a: ApiVersion, b: ApiVersion): number {
  return a.major - b.major || a.minor - b.minor;
}

export interface EndpointAddress {
  readonly name: string;
  readonly version: ApiVersion;
}

/** Parses the path (deployment prefix already removed); throws 400/0 when it does not match. */
export function parseEndpointPath(pathname: string): EndpointAddress {
  const match = PATH.exec(pathname);
  if (!match) throw apiErrorWithMessage('invalid_request_path', `Invalid request path ${pathname}`);
  const [, versionText, service, action] = match;
  const version = parseVersion(versionText ?? MAX_API_VERSION);
  if (!Number.isFinite(version.major) || !Number.isFinite(version.minor)) {
    throw apiError('invalid_version', undefined, [['version', versionText]]);
  }
  return { name: `${service}.${action}`, version };
}
