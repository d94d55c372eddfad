import unittest

import grpc

from clearml_events_grpc.errors import is_permanent_code, refusal_of


class FakeRpcError(grpc.RpcError):
    """The three accessors a grpc call error has."""

    def __init__(self, status, details, trailing=()):
        self._status, self._details, self._trailing = status, details, trailing

    def code(self):
        return self._status

    def details(self):
        return self._details

    def trailing_metadata(self):
        return self._trailing


class Classification(unittest.TestCase):
    def test_clearml_codes(self):
        self.assertTrue(all(is_permanent_code(c) for c in (400, 401, 403, 404, 413)))
        self.assertFalse(any(is_permanent_code(c) for c in (408, 429, 500, 503)))

    def test_the_servers_metadata_decides(self):
        unauthorized = FakeRpcError(grpc.StatusCode.UNAUTHENTICATED, 'Unauthorized (invalid credentials)',
                                    (('clearml-result-code', '401'), ('clearml-result-subcode', '22')))
        refusal = refusal_of(unauthorized)
        self.assertEqual((refusal.code, refusal.subcode), (401, 22))
        self.assertIn('401/22', str(refusal))
        overloaded = FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, 'busy', (('clearml-result-code', '429'),))
        self.assertIsNone(refusal_of(overloaded))

    def test_without_metadata_the_status_decides(self):
        self.assertIsNone(refusal_of(FakeRpcError(grpc.StatusCode.UNAVAILABLE, 'Connection reset')))
        self.assertIsNone(refusal_of(FakeRpcError(grpc.StatusCode.INTERNAL, 'Internal server error')))
        # grpc-js's own answer to a message over the server's size limit: the same chunk would be refused again.
        self.assertIsNotNone(refusal_of(FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, 'Received message larger than max')))


if __name__ == '__main__':
    unittest.main()
