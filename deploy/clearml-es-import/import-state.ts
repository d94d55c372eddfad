/**
 * Where an import stands, kept beside the export (`<file>.import-state.json`
 * by default) after every batch the service acknowledged: the byte offset
 * of the first line not yet sent, and running totals. A new run continues
 * from there. The file's size and modification time are kept too: another
 * file at the same path is not resumed (`--restart` starts over).
 */
import { readFile, rename, stat, writeFile } from 'node:fs/promises';

export interface ImportState {
  file: { size: number; mtimeMs: number };
  /** Byte offset of the first line not yet imported. */
  offset: number;
  documents: number;
  added: number;
  /** Events the service refused, by reason (events.add_batch errors_info). */
  refused: Record<string, number>;
  /** Documents not imported, by reason (not an event, another company). */
  skipped: Record<string, number>;
  done: boolean;
}

export async function fileIdentity(file: string): Promise<ImportState['file']> {
  const s = await stat(file);
  return { size: s.size, mtimeMs: s.mtimeMs };
}

export function freshState(file: ImportState['file']): ImportState {
  return { file, offset: 0, documents: 0, added: 0, refused: {}, skipped: {}, done: false };
}

/** The saved state of this very file, or undefined (none, or saved for another file). */
export async function loadState(statePath: string, file: ImportState['file']): Promise<ImportState | undefined> {
  let saved: ImportState;
  try {
    saved = JSON.parse(await readFile(statePath, 'utf8')) as ImportState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${statePath}: not an import state (${(error as Error).message}); remove it or pass --restart`);
  }
  if (saved.file?.size !== file.size || saved.file?.mtimeMs !== file.mtimeMs) {
    throw new Error(
      `${statePath} was saved for another version of the export (size or time differs); pass --restart to import it from the start`,
    );
  }
  return saved;
}

/** Written to a temporary file and renamed: a crash leaves the old state or the new one, never half of one. */
export async function saveState(statePath: string, state: ImportState): Promise<void> {
  const temporary = `${statePath}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(state, null, 1));
  await rename(temporary, statePath);
}

export function count(into: Record<string, number>, reason: string, n = 1): void {
  into[reason] = (into[reason] ?? 0) + n;
}
