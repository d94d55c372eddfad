"""
The dicts the ClearML SDK puts in an `events.add_batch` request, i.e. what
`AddBatchRequest.get_json()` returns, copied from the SDK source at clearml
v1.17.0 (github.com/allegroai/clearml, commit 39e206f9):

- The event models are clearml/backend_api/services/v2_23/events.py
  (MetricsScalarEvent, MetricsVectorEvent, MetricsImageEvent,
  MetricsPlotEvent, TaskLogEvent); `DataModel.to_dict`
  (backend_api/session/datamodel.py) drops None values and turns enums (the
  log level, LogLevelEnum) into their value; `type` is a constant property.
- `AddRequest` is a CompoundRequest (backend_api/session/request.py):
  `to_dict` is the event's dict plus the request's own properties,
  `allow_locked` (default False) and `model_event` (default False; set from
  `Metrics._for_model` in backend_interface/metrics/interface.py when the
  server API is 2.23 or later, absent with older ones).
- Scalars, vectors, plots, images: backend_interface/metrics/events.py
  (`_get_base_dict`: task, timestamp = int(time.time() * 1000), metric,
  variant, iter when not None). Debug images carry key and url after the
  upload (`ImageEventNoUpload`, `UploadEvent`).
- Logs: backend_interface/task/log.py `_record_to_event`: timestamp
  int(record.created * 1000), level record.levelname.lower(), worker the
  session's worker, msg; sent with `events.AddRequest(e)`.
"""
TASK = '4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f'

SCALAR = {
    'timestamp': 1718000000123,
    'type': 'training_stats_scalar',
    'task': TASK,
    'iter': 12,
    'metric': 'loss',
    'variant': 'train',
    'value': 0.25,
    'allow_locked': False,
    'model_event': False,
}

VECTOR = {
    'timestamp': 1718000000124,
    'type': 'training_stats_vector',
    'task': TASK,
    'iter': 12,
    'metric': 'hist',
    'variant': 'weights',
    'values': [1.0, 2.5, 0.0],
    'allow_locked': False,
    'model_event': False,
}

PLOT = {
    'timestamp': 1718000000125,
    'type': 'plot',
    'task': TASK,
    'iter': 12,
    'metric': 'confusion',
    'variant': 'val',
    'plot_str': '{"data": [{"type": "heatmap", "z": [[1, 0], [0, 1]]}], "layout": {"title": "confusion"}}',
    'allow_locked': False,
    'model_event': False,
}

IMAGE = {
    'timestamp': 1718000000126,
    'type': 'training_debug_image',
    'task': TASK,
    'iter': 12,
    'metric': 'samples',
    'variant': 'input',
    'key': 'proj/exp.%s/metrics/samples/input/samples_input_00000003.jpeg' % TASK,
    'url': 'https://files.example.com/proj/exp.%s/metrics/samples/input/samples_input_00000003.jpeg' % TASK,
    'allow_locked': False,
    'model_event': False,
}

LOG = {
    'timestamp': 1718000000127,
    'type': 'log',
    'task': TASK,
    'level': 'info',
    'worker': 'node-17:gpu0',
    'msg': 'epoch 3 done\nval loss 0.21',
    'allow_locked': False,
    'model_event': False,
}

# A model's scalar (Metrics created with for_model=True, API 2.23): `task` is the model id.
MODEL_SCALAR = dict(SCALAR, task='9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d', model_event=True)

# The same scalar from an SDK talking to a server with an API older than 2.23: no model_event.
OLD_API_SCALAR = {k: v for k, v in SCALAR.items() if k != 'model_event'}
