/**
 * What happens to the rest of a request body when its call is refused before the body was read to
 * its end (docs/protocol.md, "Body limit").
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream';

/** Sockets whose answer is sent and that stay open only to read the rest of a refused body. */
const readingRest = new WeakSet<Socket>();

/**
 * A call refused before its body was read to the end (a streamed body refused mid-way: a line over
 * MAX_LINE_BYTES, too many entities, a malformed line; or any refusal before the body: 401, 403)
 * leaves the rest of the body on the connection. Within a declared Content-Length (at most the body
 * limit, checked before reading) the rest is read and dropped, so that the client reads the answer
 * rather than a reset while it still writes, and a kept-alive connection serves its next request;
 * nothing else would read it, and the connection would wait for it until its timeout. A body over the
 * limit, or a chunked one (no end known in advance), is not read further: the connection closes after
 * the answer (answers false).
 */
export function drainUnreadBody(raw: IncomingMessage, refusedForSize: boolean): boolean {
  if (raw.complete) return true;
  if (refusedForSize || raw.headers['content-length'] === undefined) return false;
  // The limited stream the operation read may still hold the request: nothing reads from it any more.
  raw.unpipe();
  raw.resume();
  closeOnlyOnceRead(raw);
  return true;
}

/**
 * When the connection is to close after the answer (the client sent `Connection: close`, or HTTP/1.0),
 * Node closes it as soon as the answer is written (`destroySoon`). The bytes the client still sends
 * then meet a closed socket, which answers with a reset, and a reset can discard the answer in the
 * client's receive buffer before it reads it. So the close waits until the rest of the body is read
 * (bounded: the declared length is within the body limit, and the request and idle timeouts still
 * apply). A kept-alive connection never reaches `destroySoon` and is unaffected.
 */
function closeOnlyOnceRead(raw: IncomingMessage): void {
  const socket = raw.socket as Socket & { destroySoon(): void };
  const own = Object.prototype.hasOwnProperty.call(socket, 'destroySoon');
  const original = socket.destroySoon;
  const restore = () => {
    if (own) socket.destroySoon = original;
    else delete (socket as Partial<typeof socket>).destroySoon;
  };
  socket.destroySoon = function destroyOnceRead(this: typeof socket) {
    restore();
    if (raw.complete) return original.call(this);
    readingRest.add(this);
    finished(raw, () => original.call(this));
  };
  finished(raw, () => {
    if (!readingRest.has(socket)) restore();
  });
}

/**
 * The socket has been answered and is only reading the rest of a refused body: a timeout or a client
 * error on it must not write a second answer.
 */
export function isReadingRefusedBody(socket: Socket): boolean {
  return readingRest.has(socket);
}
