/**
 * Imports a JSON export of ClearML's Elasticsearch events indices into this
 * service through events.add_batch (docs/clearml-companion.md, "Moving
 * existing events"): the documents of one company, in file order, in
 * batches, with the import state saved after each acknowledged batch that
 * ends a line.
 *
 * Idempotent: every event type but `log` has an identity (events.md §1.5),
 * so importing a document again replaces it. Resumable: a run continues
 * after the last line of the last acknowledged batch; only log lines of the
 * batches in flight when a run stopped can be sent twice (logs have no
 * identity), at most the batches of one export line.
 */
import { convertDocument, documentsOf } from './es-event-conversion.js';
import type { EventsApi } from './events-api.js';
import { exportLines } from './export-lines.js';
import { count, fileIdentity, freshState, loadState, saveState, type ImportState } from './import-state.js';

export interface ImportOptions {
  file: string;
  api: EventsApi;
  statePath: string;
  /** Ignore a saved state and import from the start. */
  restart?: boolean;
  /** The company whose documents are imported; default: the company of the credentials. */
  company?: string;
  /** Events per add_batch call. */
  batchEvents?: number;
  /** Bytes of NDJSON per add_batch call (the SDK sends at most 15 MiB; the service takes 64 MiB). */
  batchBytes?: number;
  log?: (line: string) => void;
}

type Totals = Pick<ImportState, 'documents' | 'added' | 'refused' | 'skipped'>;

const emptyTotals = (): Totals => ({ documents: 0, added: 0, refused: {}, skipped: {} });

function merge(state: ImportState, totals: Totals): void {
  state.documents += totals.documents;
  state.added += totals.added;
  for (const [reason, n] of Object.entries(totals.refused)) count(state.refused, reason, n);
  for (const [reason, n] of Object.entries(totals.skipped)) count(state.skipped, reason, n);
}

export async function importEsExport(options: ImportOptions): Promise<ImportState> {
  const { file, api, statePath } = options;
  const maxEvents = options.batchEvents ?? 5000;
  const maxBytes = options.batchBytes ?? 8 * 1024 * 1024;
  const identity = await fileIdentity(file);
  const state = (options.restart ? undefined : await loadState(statePath, identity)) ?? freshState(identity);
  if (state.done) return state;
  const wanted = options.company ?? (await api.company());
  if (wanted === undefined) throw new Error('the credentials do not say their company: pass --company');
  // ClearML lower-cases the company in index names (apiserver/bll/event/event_common.py get_index_name).
  const company = wanted.toLowerCase();

  // Totals since the last saved state: merged when a state is saved, so that a resumed run counts each document once.
  let pending = emptyTotals();
  let batch: object[] = [];
  let bytes = 0;
  let lastEnd = state.offset;
  let batches = 0;

  const send = async () => {
    if (batch.length === 0) return;
    const answer = await api.addBatch(batch);
    pending.added += answer.added;
    for (const [reason, n] of Object.entries(answer.errors_info ?? {})) count(pending.refused, reason, n);
    batch = [];
    bytes = 0;
    batches++;
  };
  const checkpoint = async (end: number) => {
    await send();
    merge(state, pending);
    pending = emptyTotals();
    state.offset = end;
    await saveState(statePath, state);
    options.log?.(
      `${state.offset}/${state.file.size} bytes, ${state.documents} documents, ${state.added} events added`,
    );
  };

  for await (const line of exportLines(file, state.offset)) {
    lastEnd = line.end;
    if (line.text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.text);
    } catch {
      count(pending.skipped, 'line that is not JSON');
      continue;
    }
    for (const document of documentsOf(parsed)) {
      pending.documents++;
      const converted = convertDocument(document);
      if ('skip' in converted) {
        count(pending.skipped, converted.skip);
        continue;
      }
      if (converted.company !== company) {
        count(pending.skipped, `another company (${converted.company})`);
        continue;
      }
      const size = Buffer.byteLength(JSON.stringify(converted.event)) + 1;
      // A line holding more than a batch (a saved search page) is sent in parts; the state moves at its end.
      if (batch.length > 0 && (batch.length >= maxEvents || bytes + size > maxBytes)) await send();
      batch.push(converted.event);
      bytes += size;
    }
    if (batch.length >= maxEvents || bytes >= maxBytes) await checkpoint(line.end);
  }
  await checkpoint(lastEnd);
  state.done = true;
  await saveState(statePath, state);
  options.log?.(`done: ${batches} batches this run`);
  return state;
}
