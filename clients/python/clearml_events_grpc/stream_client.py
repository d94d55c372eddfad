"""
EventsStreamClient: sends events over one long-lived `StreamEvents` call and
survives its breaking.

A background thread owns the stream. It writes the buffer's chunks (at most
`max_inflight_chunks` unacknowledged at a time) and settles them as acks
arrive. When the stream breaks (connection lost, server restart, a chunk
refused with 429/503), it opens a new one with the same `idempotency-key`
metadata and sends every unacknowledged chunk again under its chunk id: the
service stores each chunk once, whether or not the first copy reached it
(docs/ingest.md, "Re-sent requests"; within its de-duplication window, 10
minutes by default). A refusal a retry cannot change (4xx-class) is not
retried: for a chunk, the chunk is dropped and reported; for the stream (bad
credentials), the client fails and every waiting call raises PermanentRefusal.
"""
import logging
import threading
import uuid

import grpc

from .call_metadata import call_metadata
from .chunk_buffer import END, RETRY, ChunkBuffer
from .errors import EventsClientError, refusal_of
from .event_mapping import event_from_dict
from .gen import events_ingest_pb2_grpc

log = logging.getLogger('clearml_events_grpc')


class EventsStreamClient(object):
    def __init__(
        self,
        target,
        access_key=None,
        secret_key=None,
        token=None,
        worker=None,
        channel_credentials=None,
        channel_options=(),
        idempotency_key=None,
        chunk_events=1000,
        chunk_bytes=4 << 20,
        max_buffered_bytes=256 << 20,
        max_inflight_chunks=16,
        linger_seconds=1.0,
        retry_initial_seconds=0.2,
        retry_max_seconds=10.0,
    ):
        """
        target: host:port of the service's gRPC port. Credentials: access_key
        and secret_key (sent as Basic), or a token (Bearer). chunk_events and
        chunk_bytes bound one chunk (keep chunks a few MiB: the server holds up
        to 16 read-ahead messages per stream); max_buffered_bytes bounds the
        unacknowledged events, beyond which add() blocks; linger_seconds is how
        long a partly filled chunk waits for more events.
        """
        # One key for the client's life: chunk ids are unique under it, so a chunk re-sent on any later stream keeps its name.
        self.idempotency_key = idempotency_key or 'py-%s' % uuid.uuid4().hex
        self._metadata = call_metadata(access_key, secret_key, token, worker, self.idempotency_key)
        if channel_credentials is None:
            self._channel = grpc.insecure_channel(target, options=list(channel_options))
        else:
            self._channel = grpc.secure_channel(target, channel_credentials, options=list(channel_options))
        self._stub = events_ingest_pb2_grpc.EventsIngestStub(self._channel)
        self._buffer = ChunkBuffer(max_buffered_bytes, chunk_events, chunk_bytes, linger_seconds)
        self._max_inflight = max_inflight_chunks
        self._retry_initial = retry_initial_seconds
        self._retry_max = retry_max_seconds
        self._generation = 0
        self._call = None
        self._aborted = threading.Event()
        self.streams_opened = 0
        self._thread = threading.Thread(target=self._run, name='clearml-events-grpc', daemon=True)
        self._thread.start()

    # -- public API ------------------------------------------------------

    def add(self, event, timeout=None):
        """Queues one event (a dict with the events contract's field names, or an `Event`); blocks while the buffer is full."""
        self._buffer.add(event_from_dict(event), timeout)

    def add_batch(self, events, timeout=None):
        """Queues events in chunks of their own; the returned Ticket's wait() answers their added/errors counts."""
        return self._buffer.add_batch([event_from_dict(e) for e in events], timeout)

    def flush(self, timeout=None):
        """Waits until every event added so far is persisted (or refused as a whole with a 4xx-class code)."""
        self._buffer.flush(timeout)

    def close(self, timeout=None):
        """Sends what is buffered, waits for its acks, and releases the connection. Idempotent."""
        self._buffer.close()
        self._thread.join(timeout)
        if self._thread.is_alive():
            pending = self._buffer.pending_events()
            self._abort(TimeoutError('%d events not acknowledged within %s s; they may not be stored' % (pending, timeout)))
            self._thread.join()
            self._channel.close()
            raise self._buffer.failure
        self._channel.close()
        if self._buffer.failure is not None and not isinstance(self._buffer.failure, TimeoutError):
            raise self._buffer.failure

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def refusals(self):
        """ChunkRefusal of every chunk the service refused as a whole (4xx-class): its events were dropped."""
        return list(self._buffer.refusals)

    @property
    def stats(self):
        return {
            'streams_opened': self.streams_opened,
            'reconnects': max(0, self.streams_opened - 1),
            'acked_chunks': self._buffer.acked_chunks,
            'resent_chunks': self._buffer.resent_chunks,
            'refused_chunks': len(self._buffer.refusals),
            'pending_events': self._buffer.pending_events(),
        }

    # -- the sender thread -----------------------------------------------

    def _abort(self, failure):
        self._aborted.set()
        self._buffer.fail(failure)
        call = self._call
        if call is not None:
            call.cancel()

    def _requests(self, generation):
        while True:
            chunk = self._buffer.next_to_send(lambda: self._generation == generation, self._max_inflight)
            if chunk is None or chunk is END:
                return
            yield chunk.message()

    def _run(self):
        delay = self._retry_initial
        while not self._buffer.finished() and not self._aborted.is_set():
            resent = self._buffer.rewind()
            self._generation += 1
            generation = self._generation
            if self.streams_opened:
                log.info('events stream reopened; re-sending %d unacknowledged chunks', resent)
            self.streams_opened += 1
            try:
                reason = self._stream_once(generation)
            except grpc.RpcError as error:
                refusal = refusal_of(error)
                if refusal is not None:
                    log.error('%s', refusal)
                    self._buffer.fail(refusal)
                    return
                reason = 'stream broke: %s %s' % (error.code(), error.details())
            except EventsClientError as error:
                log.error('%s', error)
                self._buffer.fail(error)
                return
            finally:
                # The request generator of this stream stops writing; the next stream re-sends what it sent.
                self._generation += 1
                self._buffer.wake()
                if self._call is not None:
                    self._call.cancel()
                    self._call = None
            if reason is None:
                delay = self._retry_initial
                continue
            log.warning('events stream: %s; retrying in %.1f s', reason, delay)
            self._aborted.wait(delay)
            delay = min(delay * 2, self._retry_max)

    def _stream_once(self, generation):
        """Runs one stream to its end; answers why it must be reopened, or None when it ended after the last ack."""
        # wait_for_ready: while the service is unreachable the call waits for the channel (which reconnects with
        # its own backoff) instead of failing at once.
        call = self._stub.StreamEvents(self._requests(generation), metadata=self._metadata, wait_for_ready=True)
        self._call = call
        if self._aborted.is_set():
            call.cancel()
        for ack in call:
            outcome = self._buffer.on_ack(ack)
            if outcome is RETRY:
                return 'chunk %d refused for now (%d/%d %s)' % (ack.chunk_id, ack.error.code, ack.error.subcode, ack.error.message)
            if outcome is not None:
                log.warning('events dropped: %r', outcome)
        if self._buffer.finished():
            return None
        return 'stream ended by the server'
