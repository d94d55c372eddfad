"""
Drives clearml_events_grpc against a running service for
python-client.test.ts. Talks JSON lines: prints each phase reached on stdout,
waits for the test's `go` on stdin between phase a and phase b (the test
holds the acks back and cuts the connection meanwhile).

argv: target access_key secret_key task
"""
import json
import sys

from clearml_events_grpc import EventsClientError, EventsStreamClient

target, access_key, secret_key, task = sys.argv[1:5]


def say(**fields):
    sys.stdout.write(json.dumps(fields) + '\n')
    sys.stdout.flush()


def events(phase, iterations):
    """Per iteration: a scalar, a log line and a plot, all named by phase and iteration."""
    for i in iterations:
        yield {'type': 'training_stats_scalar', 'task': task, 'metric': 'loss', 'variant': phase, 'iter': i, 'value': i / 10.0}
        yield {'type': 'log', 'task': task, 'level': 'info', 'msg': '%s line %d' % (phase, i), 'timestamp': 1718000000000 + i}
        yield {'type': 'plot', 'task': task, 'metric': 'curve', 'variant': phase, 'iter': i,
               'plot_str': json.dumps({'data': [{'x': [0, 1], 'y': [i, i + 1]}], 'layout': {'title': '%s %d' % (phase, i)}})}


client = EventsStreamClient(target, access_key=access_key, secret_key=secret_key, worker='python-driver',
                            chunk_events=9, linger_seconds=0.05, retry_initial_seconds=0.05, retry_max_seconds=0.5)
try:
    for event in events('a', range(0, 10)):
        client.add(event)
    client.flush(timeout=60)
    say(phase='a-acked', stats=client.stats)
    if sys.stdin.readline().strip() != 'go':
        sys.exit('expected go')
    for event in events('b', range(10, 20)):
        client.add(event)
    # Returns once phase b is acknowledged: after the test cut the connection, on a new stream.
    client.flush(timeout=60)
    say(phase='b-acked', stats=client.stats)
    for event in events('c', range(20, 25)):
        client.add(event)
    client.add({'type': 'log', 'task': task, 'msg': 'sentinel', 'timestamp': 1900000000000})
    client.close(timeout=60)
    say(phase='done', stats=client.stats, refusals=[repr(r) for r in client.refusals])
except EventsClientError as error:
    say(phase='failed', error=type(error).__name__, message=str(error), code=getattr(error, 'code', None), subcode=getattr(error, 'subcode', None))
    sys.exit(3)
