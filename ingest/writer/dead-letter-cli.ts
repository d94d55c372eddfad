/**
 * `npm run dead-letters -- <command>`: inspect and replay dead letters with
 * the service's configuration (NATS_URL, NATS_STREAM_PREFIX, NATS_PARTITIONS
 * from the environment, as the writer reads them). docs/operations.md.
 */
import { connect } from 'nats';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../../shared/config/config.js';
import { urlList } from '../../shared/config/url-list.js';
import { DeadLetterAdmin, type DeadLetterView } from './dead-letter-admin.js';
import { DEAD_LETTER_REASONS } from './store-errors.js';

export const USAGE = `usage: npm run dead-letters -- <command>
  list [--reason <reason>] [--limit <n>]   one line per dead letter, oldest first (tab-separated)
  show <seq>                               one dead letter: where it came from, why, and its record (JSON)
  replay <seq>...                          publish the records into the events stream again, then delete the letters
  replay --all [--reason <reason>]         the same for every dead letter (of that reason)
reasons: ${DEAD_LETTER_REASONS.join(', ')}
`;

class UsageError extends Error {}

const oneLine = (text: string) => text.replace(/[\t\r\n]+/g, ' ');

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  args.splice(at, 2);
  return value;
}

function seqOf(text: string): number {
  const seq = Number(text);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new UsageError(`not a dead-letter sequence number: ${text}`);
  return seq;
}

function shown(letter: DeadLetterView): unknown {
  const { payload, headers, ...rest } = letter;
  let records: unknown = payload;
  const frame = /^([ILR])(\d+):/.exec(payload);
  if (frame && letter.recordIndex !== undefined) {
    const body = payload.slice(frame[0].length);
    let parsed: unknown = body;
    if (frame[1] !== 'I') {
      try {
        parsed = JSON.parse(body);
      } catch {
        // shown as text
      }
    }
    records = { kind: frame[1], body: parsed };
  }
  return { ...rest, deadAt: letter.deadAt.toISOString(), headers, record: records };
}

/** Runs one command; answers the exit code. */
export async function runDeadLetterCommand(
  argv: readonly string[],
  admin: DeadLetterAdmin,
  out: (line: string) => void,
): Promise<number> {
  const args = [...argv];
  const command = args.shift();
  try {
    if (command === 'list') {
      const reason = option(args, '--reason');
      const limitText = option(args, '--limit');
      if (args.length > 0) throw new UsageError(`unexpected ${args.join(' ')}`);
      const letters = await admin.list({ reason, limit: limitText === undefined ? undefined : seqOf(limitText) });
      out(['seq', 'dead_at', 'partition', 'stream_seq', 'record', 'company', 'reason', 'detail'].join('\t'));
      for (const l of letters) {
        out(
          [
            l.seq,
            l.deadAt.toISOString(),
            l.partition ?? '',
            l.streamSeq ?? '',
            l.recordIndex ?? 'message',
            oneLine(l.company ?? ''),
            l.reason,
            oneLine(l.detail),
          ].join('\t'),
        );
      }
      return 0;
    }
    if (command === 'show') {
      if (args.length !== 1) throw new UsageError('show takes one sequence number');
      const letter = await admin.get(seqOf(args[0]!));
      if (!letter) {
        out(`no dead letter ${args[0]}`);
        return 1;
      }
      out(JSON.stringify(shown(letter), null, 2));
      return 0;
    }
    if (command === 'replay') {
      const all = args.includes('--all');
      if (all) args.splice(args.indexOf('--all'), 1);
      const reason = option(args, '--reason');
      const valid = all ? args.length === 0 : args.length > 0 && reason === undefined;
      if (!valid) throw new UsageError('replay takes sequence numbers, or --all [--reason <reason>]');
      const seqs = all ? (await admin.list({ reason })).map((l) => l.seq) : args.map(seqOf);
      let missing = 0;
      for (const seq of seqs) {
        const result = await admin.replay(seq);
        if (result) out(`replayed ${seq} to partition ${result.partition} (events stream seq ${result.streamSeq})`);
        else {
          out(`no dead letter ${seq}`);
          missing++;
        }
      }
      out(`replayed ${seqs.length - missing} of ${seqs.length}`);
      return missing > 0 ? 1 : 0;
    }
    throw new UsageError(command === undefined ? 'no command' : `unknown command ${command}`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out(`${error.message}\n${USAGE}`);
    return 2;
  }
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const nc = await connect({ servers: urlList(config.NATS_URL), name: 'clearml-dead-letters' });
  try {
    const admin = new DeadLetterAdmin(nc, await nc.jetstreamManager(), {
      streamPrefix: config.NATS_STREAM_PREFIX,
      partitions: config.NATS_PARTITIONS,
    });
    process.exitCode = await runDeadLetterCommand(process.argv.slice(2), admin, (line) =>
      process.stdout.write(`${line}\n`),
    );
  } finally {
    await nc.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
