/**
 * Request fields specific to reports: the report name (§2.2), the client
 * message (§2.3), the update echo (§3.2) and date-times in write answers.
 */
import { z } from 'zod';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { documented, str, wrongType, type FieldBuilder } from '../../shared/protocol/request-fields.js';
import { formatClearmlDateTime } from './query-language/clearml-datetime.js';
import { codePointLength } from './store/project-path.js';

export interface ReportName {
  /** As received (the update echo returns it). */
  raw: string;
  /** Surrounding whitespace removed: what is stored and compared. */
  trimmed: string;
}

const MIN_NAME_LENGTH = 3;

/** A report name: a string whose trimmed value has at least 3 characters. */
export function reportName(options: { required?: boolean } = {}): FieldBuilder<ReportName | undefined> {
  return (name) =>
    documented(
      (options.required ? str({ required: true })(name) : str()(name)).transform((value, ctx) => {
        if (value === undefined) return undefined;
        const trimmed = value.trim();
        if (codePointLength(trimmed) < MIN_NAME_LENGTH) {
          ctx.addIssue({
            code: 'custom',
            message: `value '${trimmed}' length is lower than allowed minimum '${MIN_NAME_LENGTH}'.`,
          });
          return z.NEVER;
        }
        return { raw: value, trimmed };
      }),
      {
        json: { type: 'string', minLength: MIN_NAME_LENGTH, description: 'Counted without surrounding whitespace' },
        required: options.required,
      },
    );
}

/**
 * The `project` member of create and move, read as sent: its presence
 * counts even as null (the reports root), and an absent optional member
 * stays absent in zod's output. Checked by `nullableString`.
 */
export const projectMember: FieldBuilder<unknown> = () =>
  documented(z.unknown().optional(), {
    json: { type: ['string', 'null'], description: 'Project id; null: the reports root' },
  });

/** A string-or-null request member whose presence matters (move's `project`); 400/12 for other types. */
export function nullableString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw apiError('validation_error', wrongType('str', value).toLowerCase());
  return value;
}

/** §2.3: `message` if it is a string, else `comment` if it is a string, else "". */
export function clientMessage(request: { message?: unknown; comment?: unknown }): string {
  if (typeof request.message === 'string') return request.message;
  if (typeof request.comment === 'string') return request.comment;
  return '';
}

const ABBREVIATION_LIMIT = 100;
const ELLIPSIS = '[...]';

/** The update echo of `report` (§3.2): whitespace collapsed, at most 100 characters with whole words. */
export function abbreviateReport(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  if (codePointLength(collapsed) <= ABBREVIATION_LIMIT) return collapsed;
  const words = collapsed.split(' ');
  let kept = '';
  for (const word of words) {
    const next = kept === '' ? word : `${kept} ${word}`;
    if (codePointLength(next) + ELLIPSIS.length + 1 > ABBREVIATION_LIMIT) break;
    kept = next;
  }
  return kept === '' ? ELLIPSIS : `${kept} ${ELLIPSIS}`;
}

export const dateTime = (epochMs: number) => formatClearmlDateTime(epochMs);
