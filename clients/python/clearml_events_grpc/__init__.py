"""
A client of the events service's gRPC ingest (proto/clearml/events/v1): streams
events with StreamEvents, re-sends unacknowledged chunks after a reconnect so
that the service stores them exactly once. See clients/python/README.md.
"""
from .chunk_buffer import BatchResult, BufferFull, ClientClosed
from .errors import ChunkRefusal, EventsClientError, PermanentRefusal
from .event_mapping import event_from_dict
from .stream_client import EventsStreamClient

__all__ = [
    'BatchResult',
    'BufferFull',
    'ChunkRefusal',
    'ClientClosed',
    'EventsClientError',
    'EventsStreamClient',
    'PermanentRefusal',
    'event_from_dict',
]
