/**
 * What one InfluxDB 1.x database takes on disk, and where inside its TSM
 * files the bytes go: per measurement and field, the values and the
 * timestamps of its blocks (bench:storage's breakdown; docs/storage.md).
 *
 * No tool of the Debian package reads TSM files (influx_inspect is not
 * shipped), so the index is read here, after the layout of
 * tsdb/engine/tsm1/data_file.go: header (magic 0x16D116D1, version), blocks
 * (CRC32 + data), index entries (u16 key length, key, u8 type, u16 count,
 * count × (i64 min time, i64 max time, i64 offset, u32 size)), and the
 * index's offset as the last 8 bytes. A block's data is its type byte, the
 * uvarint length of its encoded timestamps, the timestamps, the values.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';

/** Bytes a file occupies on disk (allocated blocks, as du counts them), not its apparent size. */
function allocatedBytes(file: string): number {
  return statSync(file).blocks * 512;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

export interface FieldBytes {
  measurement: string;
  field: string;
  /** Bytes of encoded values, block headers (CRC, type, length) included. */
  values: number;
  timestamps: number;
  /** This field's share of the TSM index (its entries and series keys). */
  index: number;
  blocks: number;
}

export interface DatabaseDiskUsage {
  /** Everything: data directory of the database (TSM, TSI index, series file) and its WAL. */
  total: number;
  tsm: number;
  tsi: number;
  seriesFile: number;
  wal: number;
  fields: FieldBytes[];
}

const KEY_FIELD_SEPARATOR = '#!~#';

/** Reads the index of one TSM file into `fields`; throws when the parts do not add up to the file's size. */
function addTsmFile(file: string, fields: Map<string, FieldBytes>): void {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const footer = Buffer.alloc(8);
    readSync(fd, footer, 0, 8, size - 8);
    const indexStart = Number(footer.readBigUInt64BE(0));
    const index = Buffer.alloc(size - 8 - indexStart);
    readSync(fd, index, 0, index.length, indexStart);
    const blockHead = Buffer.alloc(16);
    let blockBytes = 0;
    for (let at = 0; at < index.length;) {
      const entryStart = at;
      const keyLength = index.readUInt16BE(at);
      const key = index.toString('utf8', at + 2, at + 2 + keyLength);
      at += 2 + keyLength + 1;
      const count = index.readUInt16BE(at);
      at += 2;
      const separator = key.indexOf(KEY_FIELD_SEPARATOR);
      const measurement = key.slice(0, key.search(/(?<!\\),/));
      const field = key.slice(separator + KEY_FIELD_SEPARATOR.length);
      const name = `${measurement}.${field}`;
      let entry = fields.get(name);
      if (!entry) fields.set(name, (entry = { measurement, field, values: 0, timestamps: 0, index: 0, blocks: 0 }));
      for (let n = 0; n < count; n++, at += 28) {
        const offset = Number(index.readBigUInt64BE(at + 16));
        const blockSize = index.readUInt32BE(at + 24);
        readSync(fd, blockHead, 0, Math.min(16, blockSize), offset);
        // blockHead: CRC32 (4), type (1), uvarint length of the timestamps.
        let timestamps = 0;
        let shift = 0;
        let p = 5;
        for (;;) {
          const byte = blockHead[p++]!;
          timestamps += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) break;
          shift += 7;
        }
        entry.timestamps += timestamps;
        entry.values += blockSize - timestamps;
        entry.blocks++;
        blockBytes += blockSize;
      }
      entry.index += at - entryStart;
    }
    const header = 5;
    if (header + blockBytes + index.length + 8 !== size)
      throw new Error(`${file}: blocks and index add up to ${header + blockBytes + index.length + 8}, not ${size}`);
  } finally {
    closeSync(fd);
  }
}

/** The database's footprint under an InfluxDB data directory and WAL directory (the stack's `influxdb/data` and `influxdb/wal`). */
export function databaseDiskUsage(influxDir: string, database: string): DatabaseDiskUsage {
  const dataDir = path.join(influxDir, 'data', database);
  const walDir = path.join(influxDir, 'wal', database);
  const fields = new Map<string, FieldBytes>();
  let tsm = 0;
  let tsi = 0;
  let seriesFile = 0;
  for (const file of filesUnder(dataDir)) {
    const bytes = allocatedBytes(file);
    const relative = path.relative(dataDir, file).split(path.sep);
    if (relative[0] === '_series') seriesFile += bytes;
    else if (relative.includes('index')) tsi += bytes;
    else if (file.endsWith('.tsm')) {
      tsm += bytes;
      addTsmFile(file, fields);
    } else tsi += bytes; // fields.idx and tombstones: index-like metadata of the shard
  }
  const wal = filesUnder(walDir).reduce((sum, file) => sum + allocatedBytes(file), 0);
  return {
    total: tsm + tsi + seriesFile + wal,
    tsm,
    tsi,
    seriesFile,
    wal,
    fields: [...fields.values()].sort((a, b) => a.measurement.localeCompare(b.measurement) || b.values - a.values),
  };
}
