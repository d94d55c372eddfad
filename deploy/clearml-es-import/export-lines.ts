/**
 * The lines of an export file from a byte offset, each with the offset just
 * past it, so that an import can resume exactly after the last line it
 * finished. Streams: exports run to many gigabytes.
 */
import { createReadStream } from 'node:fs';

export interface ExportLine {
  text: string;
  /** Byte offset just past this line (its newline included). */
  end: number;
}

export async function* exportLines(file: string, start: number): AsyncGenerator<ExportLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let offset = start;
  for await (const chunk of createReadStream(file, { start })) {
    let from = 0;
    const buffer = chunk as Buffer;
    for (let at = buffer.indexOf(10, from); at >= 0; at = buffer.indexOf(10, from)) {
      const piece = buffer.subarray(from, at);
      const line = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]);
      offset += line.length + 1;
      pending = [];
      pendingBytes = 0;
      yield { text: line.toString('utf8'), end: offset };
      from = at + 1;
    }
    if (from < buffer.length) {
      pending.push(buffer.subarray(from));
      pendingBytes += buffer.length - from;
    }
  }
  if (pendingBytes > 0) {
    const line = Buffer.concat(pending);
    yield { text: line.toString('utf8'), end: offset + line.length };
  }
}
