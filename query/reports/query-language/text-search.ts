/**
 * Free-text search (reports.md §4.7), an approximation of a MongoDB English
 * text index: tokens are runs of letters/digits, compared case- and
 * diacritic-insensitively, stop words dropped; `"phrases"`, `-negated` terms.
 */
import type { FieldCatalogue } from './field-catalogue.js';
import { recordValue, splitPath, stringsOf } from './record-path.js';
import { ENGLISH_STOP_WORDS } from './stop-words.js';
import type { Condition, StoredRecord } from './types.js';

/** Lower case without diacritics, the form both queries and fields are compared in. */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Letter/digit runs of already folded text. */
function splitTokens(folded: string): string[] {
  return folded.split(/[^\p{L}\p{N}]+/u).filter((t) => t !== '');
}

export function tokenize(text: string): string[] {
  return splitTokens(foldText(text));
}

export interface TextQuery {
  readonly terms: readonly string[];
  readonly negated: readonly string[];
  readonly phrases: readonly string[];
}

export function parseTextQuery(text: string): TextQuery {
  const terms: string[] = [];
  const negated: string[] = [];
  const phrases: string[] = [];
  const pieces = text.split('"');
  pieces.forEach((piece, i) => {
    // Odd pieces sit between quotes; an unclosed quote makes the rest a phrase.
    if (i % 2 === 1) {
      const phrase = foldText(piece).trim();
      if (phrase !== '') phrases.push(phrase);
      return;
    }
    for (const word of piece.split(/\s+/)) {
      if (word === '') continue;
      const target = word.startsWith('-') ? negated : terms;
      for (const token of tokenize(word.startsWith('-') ? word.slice(1) : word)) {
        if (!ENGLISH_STOP_WORDS.has(token)) target.push(token);
      }
    }
  });
  return { terms, negated, phrases };
}

interface IndexedField {
  readonly path: readonly string[];
  readonly weight: number;
}

interface RecordText {
  readonly folded: string[];
  readonly tokens: string[][];
}

export interface TextSearch extends Condition {
  /** Σ weight × occurrences of query words in the field's tokens (§4.7); 0 for non-matching records. */
  score(record: StoredRecord): number;
}

/** The search of a `search_text` value; undefined when it is empty (no condition). */
export function compileTextSearch(text: string | undefined, catalogue: FieldCatalogue): TextSearch | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const query = parseTextQuery(text);
  const fields: IndexedField[] = catalogue.textSearchFields.map(([path, weight]) => ({
    path: splitPath(path),
    weight,
  }));
  const scored = new Set([...query.terms, ...query.phrases.flatMap(splitTokens)]);
  const negated = new Set(query.negated);
  const terms = new Set(query.terms);
  const cache = new WeakMap<StoredRecord, RecordText>();

  const textOf = (record: StoredRecord): RecordText => {
    let known = cache.get(record);
    if (!known) {
      const folded = fields.map((f) => stringsOf(recordValue(record, f.path)).map(foldText).join('\n'));
      known = { folded, tokens: folded.map(splitTokens) };
      cache.set(record, known);
    }
    return known;
  };

  const matches = (record: StoredRecord): boolean => {
    if (terms.size === 0 && query.phrases.length === 0) return false;
    const { folded, tokens } = textOf(record);
    if (negated.size > 0 && tokens.some((ts) => ts.some((t) => negated.has(t)))) return false;
    if (query.phrases.length > 0) return query.phrases.every((p) => folded.some((f) => f.includes(p)));
    return tokens.some((ts) => ts.some((t) => terms.has(t)));
  };

  return {
    test: matches,
    score(record) {
      if (!matches(record)) return 0;
      const { tokens } = textOf(record);
      let total = 0;
      fields.forEach((f, i) => {
        for (const t of tokens[i]!) if (scored.has(t)) total += f.weight;
      });
      return total;
    },
  };
}
