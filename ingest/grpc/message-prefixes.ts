/**
 * The sizes of gRPC messages read from a call's request stream as its bytes
 * arrive: each message is a 5-byte prefix (a compression flag and a 4-byte
 * big-endian length) and that many bytes. A message's size is known once its
 * prefix is complete, before its bytes are buffered, as an HTTP body's is from
 * its Content-Length (call-admission-interceptor.ts takes it from the budget then).
 */
export const MESSAGE_PREFIX_BYTES = 5;

export class MessagePrefixes {
  /** Bytes of the current prefix read so far (0 between messages). */
  private prefixRead = 0;
  private length = 0;
  /** Bytes of the current message still to come after its prefix. */
  private remaining = 0;

  /** The framed sizes (prefix and message) of the messages whose prefix completes in `chunk`, in order. */
  sizesIn(chunk: Uint8Array): number[] {
    const sizes: number[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const step = Math.min(this.remaining, chunk.length - at);
        this.remaining -= step;
        at += step;
        continue;
      }
      // Byte 0 is the compression flag; bytes 1-4 the length (multiplied, not shifted: it may pass 2^31).
      if (this.prefixRead > 0) this.length = this.length * 256 + chunk[at]!;
      at++;
      if (++this.prefixRead === MESSAGE_PREFIX_BYTES) {
        sizes.push(MESSAGE_PREFIX_BYTES + this.length);
        this.remaining = this.length;
        this.prefixRead = 0;
        this.length = 0;
      }
    }
    return sizes;
  }
}
