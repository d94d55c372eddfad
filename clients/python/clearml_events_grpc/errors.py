"""
What the client retries and what it gives up on. The service answers with
ClearML codes (an HTTP status and a subcode): in a `ChunkAck.error`, or in the
trailing metadata `clearml-result-code` / `clearml-result-subcode` of a call
that ended with an error status (docs/grpc.md, "Errors"). A 4xx-class answer
would be answered the same way again, so it is never retried, except 408 and
429 which say "later".
"""
import grpc

# gRPC statuses that mean the same request would fail again, when the server
# gave no ClearML code (a proxy's answer, or grpc-js's own size-limit refusal).
_PERMANENT_STATUSES = frozenset(
    (
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.UNIMPLEMENTED,
        # Without a ClearML code this is the server's message size limit (docs/grpc.md, "Size limit").
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )
)


def is_permanent_code(code):
    """True for a ClearML result code that a retry cannot change."""
    return 400 <= code < 500 and code not in (408, 429)


class EventsClientError(Exception):
    """Base class of the client's errors."""


class PermanentRefusal(EventsClientError):
    """The service refused the stream in a way a retry cannot fix (bad credentials, malformed request...)."""

    def __init__(self, message, code=None, subcode=None, status=None):
        super(PermanentRefusal, self).__init__(message)
        self.code = code
        self.subcode = subcode
        self.status = status


class ChunkRefusal(object):
    """A chunk the service refused as a whole with a 4xx-class code: its events are dropped, not retried."""

    __slots__ = ('chunk_id', 'events', 'code', 'subcode', 'message')

    def __init__(self, chunk_id, events, code, subcode, message):
        self.chunk_id = chunk_id
        self.events = events
        self.code = code
        self.subcode = subcode
        self.message = message

    def __repr__(self):
        return 'ChunkRefusal(chunk %d, %d events: %d/%d %s)' % (self.chunk_id, self.events, self.code, self.subcode, self.message)


def _metadata_int(metadata, key):
    for k, v in metadata or ():
        if k == key:
            try:
                return int(v)
            except ValueError:
                return None
    return None


def refusal_of(error):
    """A PermanentRefusal for an RpcError a retry cannot fix; None when the call is worth retrying."""
    status = error.code() if hasattr(error, 'code') else None
    trailing = error.trailing_metadata() if hasattr(error, 'trailing_metadata') else None
    code = _metadata_int(trailing, 'clearml-result-code')
    subcode = _metadata_int(trailing, 'clearml-result-subcode')
    permanent = is_permanent_code(code) if code is not None else status in _PERMANENT_STATUSES
    if not permanent:
        return None
    details = error.details() if hasattr(error, 'details') else str(error)
    where = '%d/%d' % (code, subcode or 0) if code is not None else getattr(status, 'name', str(status))
    return PermanentRefusal('events service refused the stream (%s): %s' % (where, details), code, subcode, status)
