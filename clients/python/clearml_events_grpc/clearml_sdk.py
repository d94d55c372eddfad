"""
Plugs the gRPC client into the ClearML SDK's reporting. In a training script,
before Task.init:

    import clearml_events_grpc.clearml_sdk
    clearml_events_grpc.clearml_sdk.install('events.example.com:50051')

Where it plugs in (read at clearml v1.17.0, commit 39e206f9): every event the
SDK reports leaves through `Session.send` with an `events.AddBatchRequest`:
scalars, vectors, plots and debug images from
`backend_interface/metrics/interface.py` (`Metrics._do_write_events`, via
`InterfaceBase._send`), console logs from `backend_interface/task/log.py`
(`BackgroundLogService._send_events`). `install` wraps
`clearml.backend_api.session.Session.send(self, req_obj, async_enable=False,
headers=None)` (that signature since clearml 0.17.0): an events add_batch
request is sent as chunks on the gRPC stream, its events taken from
`BatchRequest.get_json()` (a list of the dicts the HTTP API would have
received), and answered with a `CallResult` built from the acks; every other
request goes to the original `send`. Debug images are uploaded by the SDK
before the request is built, so they come through unchanged.

`send` returns only when the chunks of the request are persisted, like the
HTTP call it replaces: the SDK re-sends a request whose `send` raised, and a
re-send under new chunk ids would be stored twice, so it never raises for a
slow service (the client retries underneath, with the same chunk ids).
"""
import os
import threading

from .errors import EventsClientError, PermanentRefusal
from .stream_client import EventsStreamClient

_lock = threading.Lock()
_installed = {}


def is_events_batch(req_obj):
    """True for the request the SDK sends events with (`events.add_batch`, a BatchRequest)."""
    return getattr(req_obj, '_service', None) == 'events' and getattr(req_obj, '_action', None) == 'add_batch' and hasattr(req_obj, 'get_json')


def batch_answer(result):
    """(ClearML result code, subcode, message, data) of an add_batch answered through the stream."""
    data = {'added': result.added, 'errors': result.errors, 'errors_info': dict(result.errors_info)}
    if result.refusals and result.added == 0:
        first = result.refusals[0]
        return first.code, first.subcode, first.message, data
    return 200, 0, 'OK', data


def install(target, access_key=None, secret_key=None, token=None, **client_options):
    """
    Routes the SDK's event reporting to the gRPC service at `target`
    (host:port). Credentials default to the SDK session's access and secret
    keys; `client_options` go to EventsStreamClient. Returns the function
    that restores the SDK's own `send`.
    """
    from clearml.backend_api.session.callresult import CallResult
    from clearml.backend_api.session.response import ResponseMeta
    from clearml.backend_api.session.session import Session

    with _lock:
        if 'original' in _installed:
            raise RuntimeError('clearml_events_grpc is already installed in the ClearML SDK')
        original = Session.send
        _installed['original'] = original
    clients = {}

    def client_for(session):
        # One client per process: the SDK reports from a forked subprocess by default, and a gRPC channel does not
        # survive a fork. Each process builds its own on its first send.
        pid = os.getpid()
        with _lock:
            client = clients.get(pid)
            if client is None:
                client = EventsStreamClient(
                    target,
                    access_key=access_key or (None if token else session.access_key),
                    secret_key=secret_key or (None if token else session.secret_key),
                    token=token,
                    worker=session.worker,
                    **client_options
                )
                clients[pid] = client
            return client

    def send(self, req_obj, async_enable=False, headers=None):
        if getattr(self, '_offline_mode', False) or not is_events_batch(req_obj):
            return original(self, req_obj, async_enable=async_enable, headers=headers)
        endpoint = 'events.add_batch'
        try:
            result = client_for(self).add_batch(req_obj.get_json()).wait()
            code, subcode, message, data = batch_answer(result)
        except PermanentRefusal as refusal:
            code, subcode, message, data = refusal.code or 400, refusal.subcode or 0, str(refusal), None
        except (EventsClientError, ValueError) as error:
            # An event the proto cannot carry (a non-string id...): refused like a malformed request, never retried.
            code, subcode, message, data = 400, 0, str(error), None
        meta = ResponseMeta.from_raw_data(status_code=code, text=message, endpoint=endpoint)
        meta.result_subcode = subcode
        return CallResult(meta=meta, response_data=data, request_cls=req_obj.__class__)

    Session.send = send

    def uninstall():
        with _lock:
            Session.send = _installed.pop('original')
            client = clients.pop(os.getpid(), None)
        if client is not None:
            client.close()

    return uninstall
