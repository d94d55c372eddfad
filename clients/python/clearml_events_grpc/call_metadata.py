"""
The metadata every call carries: authentication as the HTTP API's
`Authorization` header (docs/grpc.md, "Authentication"), the default worker of
the events, and the stream's idempotency key.
"""
import base64
import re

# The service accepts 1 to 255 visible ASCII characters (ingest/events/request-fingerprint.ts).
_KEY = re.compile(r'^[\x21-\x7e]{1,255}$')


def call_metadata(access_key=None, secret_key=None, token=None, worker=None, idempotency_key=None):
    if token:
        authorization = 'Bearer %s' % token
    elif access_key and secret_key:
        pair = ('%s:%s' % (access_key, secret_key)).encode('utf-8')
        authorization = 'Basic %s' % base64.b64encode(pair).decode('ascii')
    else:
        raise ValueError('credentials are needed: access_key and secret_key, or token')
    metadata = [('authorization', authorization)]
    if worker:
        metadata.append(('x-clearml-worker', worker))
    if idempotency_key is not None:
        if not _KEY.match(idempotency_key):
            raise ValueError('idempotency_key must be 1 to 255 visible ASCII characters')
        metadata.append(('idempotency-key', idempotency_key))
    return tuple(metadata)
