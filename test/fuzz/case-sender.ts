/**
 * Sends one generated case (HTTP or gRPC) and classifies what came back:
 * an answer (with its status, and whether it is a ClearML envelope), a hang
 * (nothing within the deadline) or a dropped connection. Well-formed
 * siblings inside the case are recorded with the ledger and acknowledged
 * from the answer.
 */
import { authHeaders, materializeHttpCase, SiblingSlot, type HttpCase, type Limits } from './http-case.js';
import { messageBytes, type GrpcCase } from './grpc-case.js';
import { grpcIs5xx, type GrpcSender } from './grpc-sender.js';
import type { World } from './fuzz-world.js';
import { encodeRequest, sendRaw, type RawRequest } from './raw-http.js';
import { answerAcknowledges, type WitnessEvent, type WitnessLedger } from './witness-ledger.js';

export type FuzzCase = HttpCase | GrpcCase;

export interface CaseOutcome {
  /** The operation, when the sender knows it better than the case (well-formed traffic). */
  op?: string;
  kind: 'answer' | 'hang' | 'dropped';
  /** HTTP status, or for gRPC the ClearML result code (else the gRPC code as `grpc:<n>`). */
  status: string;
  is5xx: boolean;
  /** An error answer that is not a ClearML envelope with result_code = status (HTTP only). */
  notEnvelope: boolean;
  ms: number;
  request: string;
  answer: string;
  siblings: WitnessEvent[];
  /** Size of the HTTP body sent. */
  bodyBytes?: number;
  /** Size of the HTTP request line and headers sent. */
  headBytes?: number;
}

export interface SendContext {
  world: World;
  ledger: WitnessLedger;
  limits: Limits;
  port: number;
  grpc: GrpcSender;
  deadlineMs: number;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);

export function renderHttp(request: RawRequest, max = 600): string {
  const headers = request.headers.map(([name, value]) => `${name}: ${clip(value, 80)}`).join(' | ');
  // Only the head of a body is decoded: bodies reach 64 MiB.
  const head = request.body.subarray(0, 4 * max).toString('utf8');
  const shown = head.length > max || request.body.length > 4 * max ? `${head.slice(0, max)}…` : head;
  return `${request.method} ${clip(request.target, 300)} [${headers}] body(${request.body.length}B)=${JSON.stringify(shown)}`;
}

function envelopeOk(status: number, body: Buffer): boolean {
  if (status < 400 || status === 415) return true;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { meta?: { result_code?: unknown } };
    return parsed.meta?.result_code === status;
  } catch {
    return false;
  }
}

function countEvents(c: HttpCase): number {
  if (c.body.kind === 'lines') return c.body.lines.length;
  if (c.body.kind === 'array') return c.body.items.length;
  return 1;
}

async function sendHttp(c: HttpCase, ctx: SendContext): Promise<CaseOutcome> {
  const siblings: WitnessEvent[] = [];
  const request = materializeHttpCase(c, ctx.world, ctx.limits, (slot) => {
    const event = ctx.ledger.make(c.caller, slot.witness, siblings.length % 2 === 0 ? 0 : 1, 'sibling-http');
    siblings.push(event);
    return ctx.ledger.json(event) as never;
  });
  const encoded = encodeRequest(request, `127.0.0.1:${ctx.port}`);
  const outcome = await sendRaw(ctx.port, encoded, ctx.deadlineMs);
  const rendered = renderHttp(request);
  const sizes = { bodyBytes: request.body.length, headBytes: encoded.length - request.body.length };
  if (outcome.kind !== 'answer')
    return {
      kind: outcome.kind,
      status: '-',
      is5xx: false,
      notEnvelope: false,
      ms: outcome.ms,
      request: rendered,
      answer: outcome.kind === 'dropped' ? outcome.error : 'no answer',
      siblings,
      ...sizes,
    };
  const text = outcome.body.toString('utf8');
  if (outcome.status === 200 && siblings.length > 0) {
    try {
      const data = (JSON.parse(text) as { data: Record<string, unknown> }).data;
      if (answerAcknowledges(data, siblings, countEvents(c))) ctx.ledger.markAcked(siblings);
    } catch {
      // not an add answer: the siblings stay unacknowledged
    }
  }
  return {
    kind: 'answer',
    status: String(outcome.status),
    is5xx: outcome.status >= 500,
    notEnvelope: c.method !== 'HEAD' && !envelopeOk(outcome.status, outcome.body),
    ms: outcome.ms,
    request: rendered,
    answer: clip(text, 400),
    siblings,
  };
}

function renderGrpc(c: GrpcCase, bytes: Uint8Array[]): string {
  const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, 80)).toString('hex');
  const messages = bytes.map((b) => `${b.length}B:${hex(b)}${b.length > 80 ? '…' : ''}`).join(' ');
  return `${c.op} auth=${c.auth} caller=${c.caller} metadata=${JSON.stringify(c.metadata)} messages=[${messages}] spec=${clip(
    JSON.stringify(c.messages, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
    600,
  )}`;
}

async function sendGrpc(c: GrpcCase, ctx: SendContext): Promise<CaseOutcome> {
  const perMessage: WitnessEvent[][] = [];
  const bytes = c.messages.map((message, index) => {
    const siblings: WitnessEvent[] = [];
    perMessage.push(siblings);
    return messageBytes(
      c,
      message,
      index,
      ctx.world,
      (slot: SiblingSlot) => {
        const event = ctx.ledger.make(c.caller, slot.witness, siblings.length % 2 === 0 ? 0 : 1, 'sibling-grpc');
        siblings.push(event);
        return ctx.ledger.proto(event);
      },
      ctx.limits.maxBodyBytes,
    );
  });
  const authorization = authHeaders(c.auth, ctx.world, c.caller).find(([name]) => name === 'authorization');
  const metadata: Array<[string, string]> = [...(authorization ? [authorization] : []), ...c.metadata];
  const answer = await ctx.grpc.send(c.op, metadata, bytes, ctx.deadlineMs);
  const all = perMessage.flat();
  const eventsIn = (index: number) => {
    const message = c.messages[index];
    return message?.kind === 'events' && c.op !== 'grpc.Add' ? message.events.length : 1;
  };
  // Each chunk ack of a stream stands on its own, even when the stream ends in an error afterwards.
  for (const ack of answer.acks) {
    const index = Number(ack.chunkId);
    const siblings = perMessage[index] ?? [];
    if (
      siblings.length > 0 &&
      ack.errorCode === undefined &&
      answerAcknowledges(
        { added: ack.added, errors: ack.errors, errors_info: ack.errorsInfo },
        siblings,
        eventsIn(index),
      )
    )
      ctx.ledger.markAcked(siblings);
  }
  if (
    c.op !== 'grpc.StreamEvents' &&
    answer.kind === 'answer' &&
    answer.code === 0 &&
    answer.result !== undefined &&
    all.length > 0
  ) {
    const total = c.messages.reduce((sum, _m, i) => sum + eventsIn(i), 0);
    if (
      answerAcknowledges(
        { added: answer.result.added, errors: answer.result.errors, errors_info: answer.result.errorsInfo },
        all,
        total,
      )
    )
      ctx.ledger.markAcked(all);
  }
  const status =
    answer.resultCode !== undefined ? String(answer.resultCode) : answer.code === 0 ? '200' : `grpc:${answer.code}`;
  const acks =
    answer.acks.length > 0
      ? ` acks=${JSON.stringify(answer.acks, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)).slice(0, 200)}`
      : '';
  return {
    kind: answer.kind,
    status,
    is5xx: grpcIs5xx(answer),
    notEnvelope: false,
    ms: answer.ms,
    request: renderGrpc(c, bytes),
    answer: clip(`code=${answer.code} ${answer.details}${acks}`, 400),
    siblings: all,
  };
}

export function sendCase(c: FuzzCase, ctx: SendContext): Promise<CaseOutcome> {
  return c.transport === 'http' ? sendHttp(c, ctx) : sendGrpc(c, ctx);
}
