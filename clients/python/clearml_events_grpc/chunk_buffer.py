"""
The client's memory of events not yet acknowledged, independent of gRPC.

Events are gathered into chunks (one `EventChunk`, one `events.add_batch` on
the server). A chunk stays here from the moment it is filled until its ack
says it is persisted, so that a stream that breaks can be followed by a new
one re-sending every unacknowledged chunk with its chunk id: the stream's
`idempotency-key` and the chunk id name the chunk, and the server stores a
chunk it already has nothing of twice (docs/ingest.md, "Re-sent requests").

The buffer is bounded in bytes: `add` blocks while it is full (the sender
frees room as acks arrive), which slows the training loop down rather than
letting memory grow without limit while the service is unreachable.
"""
import collections
import threading
import time

from .errors import ChunkRefusal, EventsClientError, is_permanent_code
from .gen import events_ingest_pb2 as pb

# What `next_to_send` answers when the buffer is closed and everything was sent: end the stream.
END = object()
# What `on_ack` answers for a chunk refused for a reason that may pass: send it again.
RETRY = object()


class BufferFull(EventsClientError):
    """`add` waited longer than its timeout for room in the buffer."""


class ClientClosed(EventsClientError):
    """Events were added after `close()`."""


class BatchResult(object):
    """What the service answered for the events of one `add_batch` call, summed over its chunks."""

    def __init__(self):
        self.added = 0
        self.errors = 0
        self.errors_info = {}
        self.refusals = []

    def __repr__(self):
        return 'BatchResult(added=%d, errors=%d, errors_info=%r, refusals=%r)' % (self.added, self.errors, self.errors_info, self.refusals)


class Ticket(object):
    """The pending answer to one `add_batch` call."""

    def __init__(self, chunks):
        self._pending = chunks
        self._done = threading.Event()
        self._failure = None
        self.result = BatchResult()
        if chunks == 0:
            self._done.set()

    def _chunk_acked(self, ack):
        self.result.added += ack.added
        self.result.errors += ack.errors
        for reason, count in ack.errors_info.items():
            self.result.errors_info[reason] = self.result.errors_info.get(reason, 0) + count
        self._chunk_done()

    def _chunk_refused(self, refusal):
        self.result.refusals.append(refusal)
        self._chunk_done()

    def _chunk_done(self):
        self._pending -= 1
        if self._pending == 0:
            self._done.set()

    def _fail(self, failure):
        self._failure = failure
        self._done.set()

    def wait(self, timeout=None):
        """The BatchResult once every chunk is acknowledged or refused; raises the client's failure."""
        if not self._done.wait(timeout):
            raise TimeoutError('events not acknowledged within %s s' % timeout)
        if self._failure is not None:
            raise self._failure
        return self.result


class Chunk(object):
    __slots__ = ('chunk_id', 'events', 'nbytes', 'tickets', 'sent')

    def __init__(self, chunk_id, events, nbytes):
        self.chunk_id = chunk_id
        self.events = events
        self.nbytes = nbytes
        self.tickets = []
        self.sent = False

    def message(self):
        return pb.EventChunk(chunk_id=self.chunk_id, events=self.events)


class ChunkBuffer(object):
    def __init__(self, max_bytes, chunk_events, chunk_bytes, linger_seconds):
        self._max_bytes = max_bytes
        self._chunk_events = chunk_events
        self._chunk_bytes = chunk_bytes
        self._linger = linger_seconds
        self._cond = threading.Condition()
        self._open = []
        self._open_bytes = 0
        self._open_since = 0.0
        # Sealed chunks in chunk id order: the sent ones (awaiting their ack) first, then the unsent.
        self._chunks = collections.deque()
        self._sent = 0
        self._bytes = 0
        self._next_id = 1
        self._closing = False
        self._failure = None
        self.refusals = []
        self.acked_chunks = 0
        self.resent_chunks = 0

    # -- producers -------------------------------------------------------

    def add(self, event, timeout=None):
        size = event.ByteSize()
        with self._cond:
            self._wait_for_room(size, timeout)
            if not self._open:
                self._open_since = time.monotonic()
            self._open.append(event)
            self._open_bytes += size
            self._bytes += size
            if len(self._open) >= self._chunk_events or self._open_bytes >= self._chunk_bytes:
                self._seal_open()
            self._cond.notify_all()

    def add_batch(self, events, timeout=None):
        """Events sent in chunks of their own (never mixed with `add`'s), so their acks answer exactly them."""
        sizes = [e.ByteSize() for e in events]
        with self._cond:
            self._seal_open()
            self._wait_for_room(sum(sizes), timeout)
            chunks = []
            start = 0
            while start < len(events):
                end, nbytes = start, 0
                while end < len(events) and end - start < self._chunk_events and (end == start or nbytes + sizes[end] <= self._chunk_bytes):
                    nbytes += sizes[end]
                    end += 1
                chunks.append(self._append_chunk(events[start:end], nbytes))
                self._bytes += nbytes
                start = end
            ticket = Ticket(len(chunks))
            for chunk in chunks:
                chunk.tickets.append(ticket)
            self._cond.notify_all()
            return ticket

    def _wait_for_room(self, size, timeout):
        # An empty buffer takes anything, or a request larger than the bound could never be sent.
        def ready():
            return self._failure is not None or self._closing or self._bytes == 0 or self._bytes + size <= self._max_bytes

        if not self._cond.wait_for(ready, timeout):
            raise BufferFull('no room for %d bytes of events within %s s (%d bytes unacknowledged)' % (size, timeout, self._bytes))
        if self._failure is not None:
            raise self._failure
        if self._closing:
            raise ClientClosed('the events client is closed')

    def _seal_open(self):
        if self._open:
            self._append_chunk(self._open, self._open_bytes)
            self._open, self._open_bytes = [], 0

    def _append_chunk(self, events, nbytes):
        chunk = Chunk(self._next_id, events, nbytes)
        self._next_id += 1
        self._chunks.append(chunk)
        return chunk

    # -- the sender ------------------------------------------------------

    def next_to_send(self, is_current, max_inflight, wait_slice=0.25):
        """
        The next chunk to write on the stream; END when the buffer is closed and
        everything was written (the stream may half-close); None when the
        stream is no longer current or the client failed.
        """
        with self._cond:
            while True:
                if not is_current() or self._failure is not None:
                    return None
                if self._open and (self._closing or time.monotonic() - self._open_since >= self._linger):
                    self._seal_open()
                if self._sent < len(self._chunks) and self._sent < max_inflight:
                    chunk = self._chunks[self._sent]
                    chunk.sent = True
                    self._sent += 1
                    return chunk
                if self._closing and self._sent == len(self._chunks):
                    return END
                wait = wait_slice
                if self._open:
                    wait = min(wait, max(0.0, self._open_since + self._linger - time.monotonic()))
                self._cond.wait(wait)

    def on_ack(self, ack):
        """
        Settles the chunk an ack answers: None when it was persisted, its
        ChunkRefusal when refused for good (4xx-class), RETRY when refused for
        a reason that may pass (429, 503): it stays, and the caller re-sends it
        on a new stream.
        """
        with self._cond:
            if not self._sent or self._chunks[0].chunk_id != ack.chunk_id:
                expected = self._chunks[0].chunk_id if self._sent else None
                raise EventsClientError('ack for chunk %d, expected %s: acks must come in order' % (ack.chunk_id, expected))
            chunk = self._chunks[0]
            refusal = None
            if ack.HasField('error'):
                if not is_permanent_code(ack.error.code):
                    return RETRY
                refusal = ChunkRefusal(chunk.chunk_id, len(chunk.events), ack.error.code, ack.error.subcode, ack.error.message)
                self.refusals.append(refusal)
            self._chunks.popleft()
            self._sent -= 1
            self._bytes -= chunk.nbytes
            self.acked_chunks += 1
            for ticket in chunk.tickets:
                if refusal is None:
                    ticket._chunk_acked(ack)
                else:
                    ticket._chunk_refused(refusal)
            self._cond.notify_all()
            return refusal

    def rewind(self):
        """Before a new stream: every chunk sent and not acknowledged is to be sent again."""
        with self._cond:
            resent = self._sent
            for i in range(self._sent):
                self._chunks[i].sent = False
            self._sent = 0
            self.resent_chunks += resent
            self._cond.notify_all()
            return resent

    def wake(self):
        with self._cond:
            self._cond.notify_all()

    # -- lifecycle -------------------------------------------------------

    def flush(self, timeout=None):
        """Waits until every event added before the call is acknowledged (or refused)."""
        with self._cond:
            self._seal_open()
            last = self._next_id - 1
            self._cond.notify_all()
            if not self._cond.wait_for(lambda: self._failure is not None or not self._chunks or self._chunks[0].chunk_id > last, timeout):
                raise TimeoutError('%d events not acknowledged within %s s' % (self.pending_events(), timeout))
            if self._failure is not None:
                raise self._failure

    def close(self):
        with self._cond:
            self._closing = True
            self._seal_open()
            self._cond.notify_all()

    def finished(self):
        with self._cond:
            return self._failure is not None or (self._closing and not self._chunks and not self._open)

    def fail(self, failure):
        with self._cond:
            if self._failure is None:
                self._failure = failure
                for chunk in self._chunks:
                    for ticket in chunk.tickets:
                        ticket._fail(failure)
            self._cond.notify_all()

    @property
    def failure(self):
        return self._failure

    def pending_events(self):
        with self._cond:
            return len(self._open) + sum(len(c.events) for c in self._chunks)
