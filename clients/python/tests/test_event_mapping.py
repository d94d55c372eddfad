import unittest

from clearml_events_grpc import event_from_dict
from clearml_events_grpc.clearml_sdk import batch_answer, is_events_batch
from clearml_events_grpc.chunk_buffer import BatchResult
from clearml_events_grpc.errors import ChunkRefusal

from . import sdk_event_dicts as sdk


class SdkEventDicts(unittest.TestCase):
    def assertCommon(self, message, d):
        self.assertEqual(message.type, d['type'])
        self.assertEqual(message.task, d['task'])
        self.assertEqual(message.timestamp_ms, d['timestamp'])
        self.assertEqual(message.WhichOneof('timestamp'), 'timestamp_ms')
        self.assertTrue(message.HasField('allow_locked'))
        self.assertFalse(message.allow_locked)

    def test_scalar(self):
        m = event_from_dict(sdk.SCALAR)
        self.assertCommon(m, sdk.SCALAR)
        self.assertEqual((m.iter, m.metric, m.variant, m.value), (12, 'loss', 'train', 0.25))
        self.assertTrue(m.HasField('model_event'))
        self.assertFalse(m.model_event)
        for absent in ('worker', 'msg', 'level', 'url', 'key', 'plot_str', 'model', 'x_axis_label', 'skip_validation'):
            self.assertFalse(m.HasField(absent), absent)

    def test_vector(self):
        m = event_from_dict(sdk.VECTOR)
        self.assertCommon(m, sdk.VECTOR)
        self.assertEqual(list(m.values), [1.0, 2.5, 0.0])
        self.assertFalse(m.values_present)
        self.assertFalse(m.HasField('value'))

    def test_empty_vector_is_sent_as_present(self):
        m = event_from_dict(dict(sdk.VECTOR, values=[]))
        self.assertEqual(list(m.values), [])
        self.assertTrue(m.values_present)

    def test_plot(self):
        m = event_from_dict(sdk.PLOT)
        self.assertCommon(m, sdk.PLOT)
        self.assertEqual(m.plot_str, sdk.PLOT['plot_str'])
        self.assertFalse(m.HasField('skip_validation'))

    def test_debug_image(self):
        m = event_from_dict(sdk.IMAGE)
        self.assertCommon(m, sdk.IMAGE)
        self.assertEqual((m.key, m.url), (sdk.IMAGE['key'], sdk.IMAGE['url']))

    def test_log(self):
        m = event_from_dict(sdk.LOG)
        self.assertCommon(m, sdk.LOG)
        self.assertEqual((m.level, m.worker, m.msg), ('info', 'node-17:gpu0', 'epoch 3 done\nval loss 0.21'))
        self.assertFalse(m.HasField('iter'))
        self.assertFalse(m.HasField('metric'))

    def test_model_event_and_old_api(self):
        self.assertTrue(event_from_dict(sdk.MODEL_SCALAR).model_event)
        self.assertFalse(event_from_dict(sdk.OLD_API_SCALAR).HasField('model_event'))

    def test_every_sdk_dict_round_trips_through_the_wire(self):
        from clearml_events_grpc.gen import events_ingest_pb2 as pb

        for d in (sdk.SCALAR, sdk.VECTOR, sdk.PLOT, sdk.IMAGE, sdk.LOG):
            m = event_from_dict(d)
            self.assertEqual(pb.Event.FromString(m.SerializeToString()), m)


class OtherShapes(unittest.TestCase):
    def test_absent_and_none_stay_unset(self):
        m = event_from_dict({'type': 'log', 'task': 't', 'msg': None})
        self.assertFalse(m.HasField('msg'))
        self.assertFalse(m.HasField('timestamp_ms'))

    def test_text_timestamps_and_ts_alias(self):
        self.assertEqual(event_from_dict({'timestamp': '2024-06-10T06:13:20Z'}).timestamp_text, '2024-06-10T06:13:20Z')
        self.assertEqual(event_from_dict({'ts': 1718000000000}).timestamp_ms, 1718000000000)

    def test_integral_float_iteration(self):
        self.assertEqual(event_from_dict({'iter': 7.0}).iter, 7)

    def test_values_the_proto_cannot_carry_are_refused_clearly(self):
        for bad in ({'task': 123}, {'iter': 1.5}, {'value': 'x'}, {'value': True}, {'values': [1, 'a']}):
            with self.assertRaises(ValueError):
                event_from_dict(bad)


class SdkAnswer(unittest.TestCase):
    def test_a_batch_with_accepted_events_answers_200(self):
        result = BatchResult()
        result.added, result.errors, result.errors_info = 3, 1, {'Invalid event type foo': 1}
        self.assertEqual(batch_answer(result), (200, 0, 'OK', {'added': 3, 'errors': 1, 'errors_info': {'Invalid event type foo': 1}}))

    def test_a_batch_refused_as_a_whole_answers_the_refusal(self):
        result = BatchResult()
        result.refusals.append(ChunkRefusal(4, 2, 400, 131, 'Events not added: Invalid event type foo=2'))
        self.assertEqual(batch_answer(result)[:3], (400, 131, 'Events not added: Invalid event type foo=2'))

    def test_only_events_add_batch_is_taken(self):
        class Req(object):
            def __init__(self, service, action):
                self._service, self._action = service, action

            def get_json(self):
                return []

        self.assertTrue(is_events_batch(Req('events', 'add_batch')))
        self.assertFalse(is_events_batch(Req('events', 'get_task_log')))
        self.assertFalse(is_events_batch(Req('tasks', 'add_batch')))


if __name__ == '__main__':
    unittest.main()
