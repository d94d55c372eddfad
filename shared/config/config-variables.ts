/**
 * Configuration variables as their schema describes them (zod metadata):
 * what `--help` lists, and which values configuration errors never show.
 * The schema is the one list; nothing here names a variable.
 */
import { z } from 'zod';

declare module 'zod' {
  interface GlobalMeta {
    /** The value is never shown, not even in a configuration error. Unset: decided by the variable's name. */
    secret?: boolean;
    /** The default as a person reads it, where the value alone would mislead (computed, generated, none). */
    defaultText?: string;
  }
}

export interface VariableDoc {
  readonly name: string;
  readonly description: string;
  readonly defaultText: string;
  readonly secret: boolean;
}

/** Names that hold secrets by convention, for variables whose schema does not say. */
const SECRET_NAME = /SECRET|PASSWORD|PASSWD|TOKEN|KEY/;

export function isSecretName(name: string, meta: { secret?: boolean } | undefined): boolean {
  return meta?.secret ?? SECRET_NAME.test(name);
}

function shownDefault(field: z.ZodType): string {
  const text = field.meta()?.defaultText;
  if (text !== undefined) return text;
  if (!(field instanceof z.ZodDefault)) return 'none';
  const value: unknown = field.def.defaultValue;
  if (value === '' || (Array.isArray(value) && value.length === 0)) return 'none';
  return String(value);
}

/** Every variable of an object schema, in schema order. */
export function variableDocs(shape: Record<string, z.ZodType>): VariableDoc[] {
  return Object.entries(shape).map(([name, field]) => {
    const meta = field.meta();
    return {
      name,
      description: meta?.description ?? '',
      defaultText: shownDefault(field),
      secret: isSecretName(name, meta),
    };
  });
}

/** `NAME (default: x)` and the description wrapped beneath it, for a terminal. */
export function formatVariableDocs(docs: readonly VariableDoc[], width = 80): string[] {
  const lines: string[] = [];
  for (const doc of docs) {
    lines.push(`  ${doc.name}  (default: ${doc.defaultText}${doc.secret ? '; secret, never shown' : ''})`);
    lines.push(...wrap(doc.description, width - 6).map((line) => `      ${line}`));
  }
  return lines;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
