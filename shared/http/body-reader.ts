/**
 * Request bodies under a byte limit. The limit guards every operation
 * (protocol.md §6, 413/0); streaming operations get a pass-through stream
 * that fails once the limit is crossed, so they never buffer the raw body.
 */
import { Transform, type Readable } from 'node:stream';

export async function readBodyLimited(stream: Readable, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.resume();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

export function byteLimitedStream(source: Readable, limit: number, tooLarge: () => Error): Readable {
  let size = 0;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) callback(tooLarge());
      else callback(null, chunk);
    },
  });
  source.on('error', (error) => limited.destroy(error));
  return source.pipe(limited);
}
