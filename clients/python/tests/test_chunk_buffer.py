import threading
import unittest

from clearml_events_grpc.chunk_buffer import END, RETRY, BufferFull, ChunkBuffer, ClientClosed
from clearml_events_grpc.errors import PermanentRefusal
from clearml_events_grpc.gen import events_ingest_pb2 as pb


def log(i):
    return pb.Event(type='log', task='t', msg='line %d' % i)


def ack(chunk_id, added=0, error=None):
    a = pb.ChunkAck(chunk_id=chunk_id, added=added)
    if error:
        a.error.code, a.error.subcode, a.error.message = error
    return a


def always():
    return True


class ChunkBufferTest(unittest.TestCase):
    def buffer(self, **kw):
        options = dict(max_bytes=1 << 20, chunk_events=2, chunk_bytes=1 << 20, linger_seconds=60)
        options.update(kw)
        return ChunkBuffer(**options)

    def sent_ids(self, b, n):
        return [b.next_to_send(always, max_inflight=100).chunk_id for _ in range(n)]

    def test_chunks_are_filled_then_sent_in_order(self):
        b = self.buffer()
        for i in range(5):
            b.add(log(i))
        self.assertEqual(self.sent_ids(b, 2), [1, 2])
        b.close()
        last = b.next_to_send(always, 100)
        self.assertEqual([e.msg for e in last.events], ['line 4'])
        self.assertIs(b.next_to_send(always, 100), END)

    def test_a_partly_filled_chunk_leaves_after_linger(self):
        b = self.buffer(linger_seconds=0.05)
        b.add(log(0))
        self.assertEqual(b.next_to_send(always, 100).chunk_id, 1)

    def test_unacknowledged_chunks_are_sent_again_with_their_ids_after_rewind(self):
        b = self.buffer()
        for i in range(6):
            b.add(log(i))
        self.assertEqual(self.sent_ids(b, 3), [1, 2, 3])
        self.assertIsNone(b.on_ack(ack(1, added=2)))
        self.assertEqual(b.rewind(), 2)
        again = [b.next_to_send(always, 100) for _ in range(2)]
        self.assertEqual([c.chunk_id for c in again], [2, 3])
        self.assertEqual([e.msg for e in again[0].events], ['line 2', 'line 3'])
        self.assertEqual(b.resent_chunks, 2)

    def test_in_flight_chunks_are_bounded(self):
        b = self.buffer(chunk_events=1)
        for i in range(3):
            b.add(log(i))
        self.sent_ids(b, 2)
        self.assertIsNone(b.next_to_send(lambda: False, max_inflight=2))
        b.on_ack(ack(1, added=1))
        self.assertEqual(b.next_to_send(always, max_inflight=2).chunk_id, 3)

    def test_a_transient_refusal_keeps_the_chunk_a_permanent_one_drops_it(self):
        b = self.buffer(chunk_events=1)
        for i in range(2):
            b.add(log(i))
        self.sent_ids(b, 2)
        self.assertIs(b.on_ack(ack(1, error=(503, 0, 'Events could not be persisted, retry later'))), RETRY)
        self.assertIs(b.on_ack(ack(1, error=(429, 0, 'busy'))), RETRY)
        refusal = b.on_ack(ack(1, error=(400, 131, 'Events not added: Invalid task id x=1')))
        self.assertEqual((refusal.chunk_id, refusal.events, refusal.code, refusal.subcode), (1, 1, 400, 131))
        self.assertEqual(b.refusals, [refusal])
        self.assertEqual(b.pending_events(), 1)

    def test_acks_out_of_order_are_a_protocol_error(self):
        b = self.buffer(chunk_events=1)
        b.add(log(0))
        self.sent_ids(b, 1)
        with self.assertRaises(Exception):
            b.on_ack(ack(5))

    def test_add_blocks_while_full_and_resumes_when_acks_free_room(self):
        size = log(0).ByteSize()
        b = self.buffer(max_bytes=2 * size, chunk_events=1)
        b.add(log(0))
        b.add(log(1))
        with self.assertRaises(BufferFull):
            b.add(log(2), timeout=0.05)
        added = threading.Event()
        t = threading.Thread(target=lambda: (b.add(log(2)), added.set()))
        t.start()
        self.assertFalse(added.is_set())
        self.sent_ids(b, 1)
        b.on_ack(ack(1, added=1))
        t.join(5)
        self.assertTrue(added.is_set())

    def test_batch_tickets_sum_their_own_chunks(self):
        b = self.buffer(chunk_events=2)
        b.add(log(100))
        ticket = b.add_batch([log(i) for i in range(3)])
        ids = self.sent_ids(b, 3)
        self.assertEqual(ids, [1, 2, 3])
        b.on_ack(ack(1, added=1))
        b.on_ack(ack(2, added=2))
        b.on_ack(ack(3, added=1))
        self.assertEqual(ticket.wait(1).added, 3)

    def test_flush_waits_for_the_acks_of_what_was_added(self):
        b = self.buffer()
        b.add(log(0))
        with self.assertRaises(TimeoutError):
            b.flush(timeout=0.05)
        self.sent_ids(b, 1)
        b.on_ack(ack(1, added=1))
        b.flush(timeout=1)

    def test_a_failure_wakes_every_waiter(self):
        b = self.buffer()
        ticket = b.add_batch([log(0)])
        refusal = PermanentRefusal('events service refused the stream (401/0): Unauthorized', 401, 0)
        b.fail(refusal)
        for wait in (lambda: b.flush(1), lambda: ticket.wait(1), lambda: b.add(log(1))):
            with self.assertRaises(PermanentRefusal):
                wait()

    def test_adding_after_close_is_an_error(self):
        b = self.buffer()
        b.close()
        with self.assertRaises(ClientClosed):
            b.add(log(0))


if __name__ == '__main__':
    unittest.main()
