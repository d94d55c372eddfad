/**
 * Request bodies under a byte limit. The limit guards every operation
 * (protocol.md §6, 413/0); streaming operations get a pass-through stream
 * that fails once the limit is crossed, so they never buffer the raw body.
 */
import { finished, Transform, type Readable } from 'node:stream';

/**
 * The whole body, or `tooLarge()` once it crosses the limit; `take` is told each chunk's size before it
 * is kept, and refuses the body by throwing. It reads with listeners rather than an
 * async iterator: leaving an iterator early destroys the stream, and a request destroyed before its end
 * destroys its socket, the 413 with it (unread-body.ts reads and drops the rest instead).
 */
export function readBodyLimited(
  stream: Readable,
  limit: number,
  tooLarge: () => Error,
  take?: (bytes: number) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      let refusal: unknown = size > limit ? tooLarge() : undefined;
      if (refusal === undefined && take !== undefined) {
        try {
          take(chunk.length);
        } catch (error) {
          refusal = error;
        }
      }
      if (refusal === undefined) {
        chunks.push(chunk);
        return;
      }
      stream.off('data', onData);
      stopWatching();
      reject(refusal);
    };
    stream.on('data', onData);
    const stopWatching = finished(stream, (error) => {
      stream.off('data', onData);
      stopWatching();
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  });
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
