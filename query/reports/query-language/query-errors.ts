/**
 * The query-language errors whose wording the contract fixes (reports.md §4,
 * protocol.md §6), built from the shared catalogue so codes stay in one place.
 */
import { apiError, type ApiError } from '../../../shared/errors/error-catalogue.js';
import { wrongType } from '../../../shared/protocol/request-fields.js';
import { echoText, pyRepr } from '../../../shared/protocol/python-repr.js';

/** How ClearML's `k=v` pairs print a value: Python's str(), so strings bare and the rest as repr. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? echoText(value) : pyRepr(value);
}

/** 400/16 for a list-condition item that is neither a string nor null. */
export function invalidValueType(field: string, item: unknown): ApiError {
  return apiError('invalid_fields', 'invalid value type, string expected', [
    ['field', field],
    ['value', pyStr(item)],
  ]);
}

/** 400/14 for an unknown field in order_by or a multi-field condition. */
export function cannotResolveField(name: string): ApiError {
  return apiError('lookup_error', undefined, [['err', `Cannot resolve field "${echoText(name)}"`]]);
}

/** 400/14 for an unknown only_fields path. */
export function fieldsNotDefined(path: string, objectName: string): ApiError {
  return apiError('fields_not_defined', undefined, [
    ['fields', [echoText(path)]],
    ['object', objectName],
  ]);
}

/** 400/12 for a request member that must be a string (detail lower-cased as protocol.md §3.4 says). */
export function expectedString(value: unknown): ApiError {
  return apiError('validation_error', wrongType('str', value).toLowerCase());
}

/** A string member, or undefined when absent or null; anything else is 400/12. */
export function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw expectedString(value);
  return value;
}
