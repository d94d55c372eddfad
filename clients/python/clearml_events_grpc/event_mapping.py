"""
Turns an event dict, as a ClearML client builds it for `events.add_batch`
(the field names of the service's events contract), into the protobuf `Event`.

The proto keeps "not sent" apart from empty values (every field is `optional`),
so a key that is absent or None stays unset and the service applies its own
defaults, exactly as for a JSON client. Keys the contract does not know are
dropped, as the JSON API drops them.
"""
import enum
import numbers

from .gen import events_ingest_pb2 as pb

_STRINGS = ('type', 'task', 'metric', 'variant', 'worker', 'msg', 'level', 'url', 'key', 'plot_str', 'model', 'x_axis_label')
_BOOLS = ('model_event', 'allow_locked', 'skip_validation')


def _text(name, value):
    # The SDK stores the log level as an enum member whose value is the name (v2_23/events.py LogLevelEnum).
    if isinstance(value, enum.Enum):
        value = value.value
    if not isinstance(value, str):
        raise ValueError("event field '%s' must be a string, got %s" % (name, type(value).__name__))
    return value


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError("event field '%s' must be a number, got %s" % (name, type(value).__name__))
    return float(value)


def _iteration(value):
    # The SDK turns a float iteration with no fraction into an int (v2_23/events.py, `iter` setters).
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError("event field 'iter' must be an integer, got %s" % type(value).__name__)
    return int(value)


def event_from_dict(event):
    """The protobuf `Event` carrying the fields of a JSON event dict."""
    if isinstance(event, pb.Event):
        return event
    if not isinstance(event, dict):
        raise ValueError('an event is a dict or an Event message, got %s' % type(event).__name__)
    message = pb.Event()
    for name in _STRINGS:
        value = event.get(name)
        if value is not None:
            setattr(message, name, _text(name, value))
    for name in _BOOLS:
        value = event.get(name)
        if value is not None:
            setattr(message, name, bool(value))
    if event.get('iter') is not None:
        message.iter = _iteration(event['iter'])
    if event.get('value') is not None:
        message.value = _number('value', event['value'])
    values = event.get('values')
    if values is not None:
        message.values.extend(_number('values', v) for v in values)
        # An empty list is a valid vector, a missing one is not: only the flag tells an empty one apart.
        message.values_present = not message.values
    # `ts` is the JSON API's alias of `timestamp`; the proto has one field for both.
    timestamp = event.get('timestamp', event.get('ts'))
    if timestamp is not None:
        if isinstance(timestamp, str):
            message.timestamp_text = timestamp
        else:
            message.timestamp_ms = _number('timestamp', timestamp)
    return message

