/**
 * Who a wire record belongs to (company, namespace, entity), read from the
 * record itself: a dead letter names its company, and a replay sends the
 * record to its entity's partition under the current partition count.
 */
import { decodeTagValue, TAG } from '../../shared/events/storage-layout.js';
import { decodeRecords, type DecodedRecord } from '../../shared/events/wire-format.js';
import { checkLogBody } from './record-checks.js';

export interface RecordOrigin {
  company?: string;
  namespace?: 't' | 'm';
  entity?: string;
}

/** The origin of the first record of a payload that names one; {} when none does. */
export function payloadOrigin(payload: string): RecordOrigin {
  try {
    for (const record of decodeRecords(payload)) {
      const origin = recordOrigin(record);
      if (origin.entity !== undefined) return origin;
    }
  } catch {
    // an undecodable payload names nobody
  }
  return {};
}

export function recordOrigin(record: DecodedRecord): RecordOrigin {
  if (record.kind === 'I') {
    const tags = pointTags(record.body);
    const namespace = tags.get(TAG.namespace);
    return {
      company: tags.get(TAG.company),
      namespace: namespace === 't' || namespace === 'm' ? namespace : undefined,
      entity: tags.get(TAG.entity),
    };
  }
  if (record.kind === 'L') {
    const log = checkLogBody(record.body);
    return typeof log === 'string' ? {} : { company: log[0], namespace: 't', entity: log[1] };
  }
  let value: unknown;
  try {
    value = JSON.parse(record.body);
  } catch {
    return {};
  }
  const summary = value as { c?: unknown; n?: unknown; e?: unknown } | null;
  if (
    summary === null ||
    typeof summary !== 'object' ||
    typeof summary.e !== 'string' ||
    (summary.n !== 't' && summary.n !== 'm')
  )
    return {};
  return { company: typeof summary.c === 'string' ? summary.c : undefined, namespace: summary.n, entity: summary.e };
}

/** The tags of a line-protocol point (`measurement,k=v,... fields time`), unescaped and decoded. */
export function pointTags(line: string): Map<string, string> {
  const tags = new Map<string, string>();
  let at = firstUnescaped(line, ',', 0, ' ');
  while (at >= 0 && line[at] === ',') {
    const next = firstUnescaped(line, ',', at + 1, ' ');
    const end = next < 0 ? line.length : next;
    const pair = line.slice(at + 1, end);
    const eq = firstUnescaped(pair, '=', 0);
    if (eq > 0) tags.set(unescape(pair.slice(0, eq)), decodeTagValue(unescape(pair.slice(eq + 1))));
    at = next;
  }
  return tags;
}

/** Index of the first unescaped `char` from `from`, or of an unescaped `stop` (whichever comes first); -1 if neither. */
function firstUnescaped(text: string, char: string, from: number, stop?: string): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === char || c === stop) return i;
  }
  return -1;
}

const unescape = (text: string) => text.replace(/\\([, =\\])/g, '$1');
