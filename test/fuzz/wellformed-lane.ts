/**
 * The well-formed traffic sent alongside the hostile requests: scalars,
 * logs, plots and debug images of both companies' witness tasks, over HTTP
 * (add_batch NDJSON, add) and gRPC (Add, AddBatch, StreamEvents), in a
 * fixed rotation. Every acknowledged event must be readable at the end.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import {
  EventBatchSchema,
  EventChunkSchema,
  EventSchema,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { bearer } from './api-call.js';
import type { CaseOutcome, SendContext } from './case-sender.js';
import { renderHttp } from './case-sender.js';
import type { CompanyKey } from './fuzz-world.js';
import { grpcIs5xx } from './grpc-sender.js';
import { encodeRequest, sendRaw } from './raw-http.js';
import { answerAcknowledges, type WitnessEvent } from './witness-ledger.js';

const TRANSPORTS = ['http-lines', 'http-add', 'grpc-add', 'grpc-batch', 'grpc-stream'] as const;
export type WellFormedTransport = (typeof TRANSPORTS)[number];

export function wellFormedPlan(k: number): { company: CompanyKey; transport: WellFormedTransport; witness: number } {
  return {
    company: k % 2 === 0 ? 'a' : 'b',
    transport: TRANSPORTS[Math.floor(k / 2) % TRANSPORTS.length]!,
    witness: Math.floor(k / 10) % 4,
  };
}

export async function sendWellFormed(k: number, ctx: SendContext): Promise<CaseOutcome> {
  const { company, transport, witness } = wellFormedPlan(k);
  const single = transport === 'http-add' || transport === 'grpc-add';
  const events: WitnessEvent[] = [];
  for (let t = 0; t < (single ? 1 : 4); t++) events.push(ctx.ledger.make(company, witness, single ? k : t, transport));
  const token = ctx.world.companies[company].token;
  const started = performance.now();

  if (transport === 'http-lines' || transport === 'http-add') {
    const lines = events.map((e) => JSON.stringify(ctx.ledger.json(e)));
    const request = {
      method: 'GET',
      target: `/v2.23/events.${single ? 'add' : 'add_batch'}`,
      headers: [
        ...bearer(token),
        ['content-type', single ? 'application/json' : 'application/json-lines'],
        ['x-clearml-worker', 'fuzz-wellformed'],
      ] as Array<[string, string]>,
      body: Buffer.from(lines.join('\n')),
    };
    const outcome = await sendRaw(ctx.port, encodeRequest(request, `127.0.0.1:${ctx.port}`), ctx.deadlineMs);
    const rendered = renderHttp(request, 300);
    const op = `events.${single ? 'add' : 'add_batch'}`;
    if (outcome.kind !== 'answer')
      return {
        op,
        kind: outcome.kind,
        status: '-',
        is5xx: false,
        notEnvelope: false,
        ms: outcome.ms,
        request: rendered,
        answer: outcome.kind === 'dropped' ? outcome.error : 'no answer',
        siblings: events,
      };
    const text = outcome.body.toString('utf8');
    if (outcome.status === 200) {
      const data = (JSON.parse(text) as { data: Record<string, unknown> }).data;
      if (answerAcknowledges(data, events, events.length) && Number(data.added) === events.length)
        ctx.ledger.markAcked(events);
    }
    return {
      op,
      kind: 'answer',
      status: String(outcome.status),
      is5xx: outcome.status >= 500,
      notEnvelope: false,
      ms: outcome.ms,
      request: rendered,
      answer: text.slice(0, 400),
      siblings: events,
    };
  }

  const protos = events.map((e) => ctx.ledger.proto(e));
  const messages =
    transport === 'grpc-add'
      ? [toBinary(EventSchema, create(EventSchema, protos[0] as never))]
      : transport === 'grpc-batch'
        ? [
            toBinary(EventBatchSchema, create(EventBatchSchema, { events: protos.slice(0, 2) as never })),
            toBinary(EventBatchSchema, create(EventBatchSchema, { events: protos.slice(2) as never })),
          ]
        : [
            toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: 0n, events: protos.slice(0, 2) as never })),
            toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: 1n, events: protos.slice(2) as never })),
          ];
  const op = transport === 'grpc-add' ? 'grpc.Add' : transport === 'grpc-batch' ? 'grpc.AddBatch' : 'grpc.StreamEvents';
  const answer = await ctx.grpc.send(
    op,
    [
      ['authorization', `Bearer ${token}`],
      ['x-clearml-worker', 'fuzz-wellformed'],
    ],
    messages,
    ctx.deadlineMs,
  );
  if (transport === 'grpc-stream') {
    for (const ack of answer.acks) {
      const part = Number(ack.chunkId) === 0 ? events.slice(0, 2) : events.slice(2);
      if (ack.errorCode === undefined && ack.added === part.length && ack.errors === 0) ctx.ledger.markAcked(part);
    }
  } else if (answer.code === 0 && answer.result?.added === events.length && answer.result.errors === 0) {
    ctx.ledger.markAcked(events);
  }
  const status =
    answer.resultCode !== undefined ? String(answer.resultCode) : answer.code === 0 ? '200' : `grpc:${answer.code}`;
  return {
    op,
    kind: answer.kind,
    status,
    is5xx: grpcIs5xx(answer),
    notEnvelope: false,
    ms: Math.round(performance.now() - started),
    request: `${op} well-formed ${company} ${events.map((e) => `${e.type}#${e.n}`).join(',')}`,
    answer: `code=${answer.code} ${answer.details}`,
    siblings: events,
  };
}
