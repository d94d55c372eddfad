/**
 * What happens to the rest of a request body when its call is refused before the body was read to
 * its end (docs/protocol.md, "Body limit").
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream';

/** Sockets whose answer is sent and that stay open only to read the rest of a refused body. */
const readingRest = new WeakSet<Socket>();
/** Of those, the ones closing with a lingering close: their own bound closes them. */
const lingering = new WeakSet<Socket>();

/** How long a connection refused a body over the limit (or a chunked one) keeps reading what still comes. */
export const LINGER_MS = 5_000;

/**
 * A call refused before its body was read to the end (a streamed body refused mid-way: a line over
 * MAX_LINE_BYTES, too many entities, a malformed line; or any refusal before the body: 401, 403) leaves
 * the rest of the body on the connection. Within a declared Content-Length (at most the body limit,
 * checked before reading) the rest is read and dropped, so that the client reads the answer rather than
 * a reset while it still writes, and a kept-alive connection serves its next request; nothing else would
 * read it, and the connection would wait for it until its timeout. A body not worth reading (`closing`:
 * over the limit, or in a content encoding the server does not read) or a chunked one (no end known in
 * advance) is not read to its end: the connection closes after the answer (answers false), lingering
 * first (`lingerBeforeClose`).
 */
export function drainUnreadBody(raw: IncomingMessage, closing: boolean): boolean {
  if (raw.complete) return true;
  dropRest(raw);
  if (closing || raw.headers['content-length'] === undefined) {
    lingerBeforeClose(raw);
    return false;
  }
  closeOnlyOnceRead(raw);
  return true;
}

/** The limited stream the operation read may still hold the request: nothing reads from it any more. */
function dropRest(raw: IncomingMessage): void {
  raw.unpipe();
  raw.resume();
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
  onDestroySoon(raw, (socket, destroySoon) => {
    if (raw.complete) return destroySoon();
    readingRest.add(socket);
    finished(raw, destroySoon);
  });
}

/**
 * A lingering close, as nginx and Apache make one: the answer is sent with the end of our side of the
 * connection (FIN), and what the client still sends is read and dropped until its request ends, or for
 * LINGER_MS at most, before the socket closes. Closed at once, a client that reads only once it has
 * sent its whole body (urllib3, curl) meets a reset, which discards the 413 it has not read yet.
 */
function lingerBeforeClose(raw: IncomingMessage): void {
  onDestroySoon(raw, (socket, destroySoon) => {
    linger(socket);
    // Its request ended: the socket closes once the answer is out (Node's own close).
    finished(raw, destroySoon);
  });
}

/**
 * The same lingering close for a request that never became a call (headers over Node's limit,
 * malformed HTTP), once the client-error handler has written its answer. HTTP is not read any more:
 * Node's parser, failed, reports each further chunk as another client error (isLingering), and
 * the socket closes when the client ends its side or at the bound.
 */
export function lingerAfterAnswer(socket: Socket): void {
  linger(socket);
  socket.once('end', () => socket.destroy());
}

function linger(socket: Socket): void {
  readingRest.add(socket);
  lingering.add(socket);
  socket.end();
  // At the bound, whatever is still unsent or unread goes (a client that neither reads nor stops).
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** The socket is in a lingering close: what happens on it until its bound needs no answer and no close. */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}

/** Runs `instead` when Node would close the socket after the answer (once, then Node's own is back). */
function onDestroySoon(raw: IncomingMessage, instead: (socket: Socket, destroySoon: () => void) => void): void {
  const socket = raw.socket as Socket & { destroySoon(): void };
  const own = Object.prototype.hasOwnProperty.call(socket, 'destroySoon');
  const original = socket.destroySoon;
  let replaced = true;
  const restore = () => {
    if (!replaced) return;
    replaced = false;
    if (own) socket.destroySoon = original;
    else delete (socket as Partial<typeof socket>).destroySoon;
  };
  socket.destroySoon = function destroySoonReplaced(this: typeof socket) {
    restore();
    instead(this, () => original.call(this));
  };
  // A kept-alive connection never closes after this answer: the next request finds Node's own.
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
