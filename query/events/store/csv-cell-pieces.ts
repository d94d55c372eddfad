/**
 * Cells of one CSV row as byte ranges, and the JSON pieces made of some of
 * them, remembered per distinct cells (scalar-csv-rows.ts).
 */
const QUOTE = 34;

/** Where a row's cells are: per role (2 × role) start and end (exclusive), -1 for a column the answer lacks. */
export type Cells = Int32Array;

/** A cell's text: quoted cells unquoted; undefined for a column the answer lacks. */
export function cellText(bytes: Buffer, cells: Cells, role: number): string | undefined {
  const start = cells[role * 2]!;
  const end = cells[role * 2 + 1]!;
  if (start < 0) return undefined;
  return end - start >= 2 && bytes[start] === QUOTE
    ? bytes.toString('utf8', start + 1, end - 1).replaceAll('""', '"')
    : bytes.toString('utf8', start, end);
}

/**
 * What is made of the cells of some columns (their JSON, a decoded name), remembered per distinct
 * cells in a direct-mapped table keyed by a hash of their bytes: a series' names repeat over every
 * one of its rows, and a hit costs a hash and a comparison instead of decoding, JSON.stringify and
 * a new buffer or string.
 */
const PIECE_SLOTS = 256;

export class PieceCache<T> {
  /** Per slot, the cells' lengths (-1 for a column the answer lacks) and bytes one after the other. */
  private readonly lengths: Array<Int32Array | undefined> = new Array<Int32Array | undefined>(PIECE_SLOTS);
  private readonly keys: Buffer[] = new Array<Buffer>(PIECE_SLOTS);
  private readonly pieces: T[] = new Array<T>(PIECE_SLOTS);

  constructor(
    private readonly roles: readonly number[],
    private readonly build: (bytes: Buffer, cells: Cells) => T,
  ) {}

  of(bytes: Buffer, cells: Cells): T {
    const roles = this.roles;
    // FNV-1a over each cell's length and bytes picks the slot.
    let hash = 0x811c9dc5;
    for (let r = 0; r < roles.length; r++) {
      const start = cells[roles[r]! * 2]!;
      const end = start < 0 ? start - 1 : cells[roles[r]! * 2 + 1]!;
      hash = Math.imul(hash ^ (end - start), 0x01000193);
      for (let k = start; k < end; k++) hash = Math.imul(hash ^ bytes[k]!, 0x01000193);
    }
    const slot = (hash ^ (hash >>> 16)) & (PIECE_SLOTS - 1);
    const lengths = this.lengths[slot];
    if (lengths !== undefined && this.matches(bytes, cells, lengths, this.keys[slot]!)) return this.pieces[slot]!;
    const piece = this.build(bytes, cells);
    const known = new Int32Array(roles.length);
    const parts: Buffer[] = [];
    roles.forEach((role, r) => {
      const start = cells[role * 2]!;
      known[r] = start < 0 ? -1 : cells[role * 2 + 1]! - start;
      if (start >= 0) parts.push(bytes.subarray(start, cells[role * 2 + 1]!));
    });
    this.lengths[slot] = known;
    this.keys[slot] = Buffer.concat(parts);
    this.pieces[slot] = piece;
    return piece;
  }

  private matches(bytes: Buffer, cells: Cells, lengths: Int32Array, key: Buffer): boolean {
    const roles = this.roles;
    let at = 0;
    for (let r = 0; r < roles.length; r++) {
      const start = cells[roles[r]! * 2]!;
      const length = start < 0 ? -1 : cells[roles[r]! * 2 + 1]! - start;
      if (length !== lengths[r]) return false;
      for (let k = 0; k < length; k++) if (key[at + k] !== bytes[start + k]) return false;
      if (length > 0) at += length;
    }
    return true;
  }
}
