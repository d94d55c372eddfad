/**
 * `npm run import:clearml-es -- <export file> [options]`: moves events out of
 * ClearML's Elasticsearch into this service (docs/clearml-companion.md,
 * "Moving existing events").
 */
import { pathToFileURL } from 'node:url';
import { EventsApi } from './events-api.js';
import { importEsExport } from './es-import.js';

export const USAGE = `usage: npm run import:clearml-es -- <export file> [options]
  <export file>         JSON lines: elasticdump's output of the events-* indices (one hit per line),
                        or saved _search / scroll pages (one response per line, e.g. jq -c)
  --url <url>           the API: this service, or the companion proxy (default CLEARML_API_HOST, else http://127.0.0.1:8008)
  --company <id>        import the documents of this company (default: the company of the credentials)
  --batch-events <n>    events per events.add_batch call (default 5000)
  --batch-mib <n>       MiB per call (default 8)
  --state <file>        where progress is kept (default <export file>.import-state.json)
  --restart             ignore a saved state and start over
credentials: CLEARML_API_ACCESS_KEY, CLEARML_API_SECRET_KEY (a key pair of the company being imported)
`;

class UsageError extends Error {}

function parse(args: string[], env: NodeJS.ProcessEnv) {
  const options: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--restart') options.restart = true;
    else if (arg.startsWith('--')) {
      const value = args[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      options[arg.slice(2)] = value;
    } else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError('one export file, please');
  const known = new Set(['url', 'company', 'batch-events', 'batch-mib', 'state', 'restart']);
  for (const name of Object.keys(options)) if (!known.has(name)) throw new UsageError(`unknown option --${name}`);
  const positive = (name: string): number | undefined => {
    const value = options[name];
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!(n > 0)) throw new UsageError(`--${name} takes a positive number`);
    return n;
  };
  return {
    file: positional[0]!,
    url: (options.url as string | undefined) ?? env.CLEARML_API_HOST ?? 'http://127.0.0.1:8008',
    company: options.company as string | undefined,
    batchEvents: positive('batch-events'),
    batchBytes: positive('batch-mib') === undefined ? undefined : Math.floor(positive('batch-mib')! * 1024 * 1024),
    statePath: (options.state as string | undefined) ?? `${positional[0]}.import-state.json`,
    restart: options.restart === true,
  };
}

export async function main(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parse(args, env);
    if (!env.CLEARML_API_ACCESS_KEY || !env.CLEARML_API_SECRET_KEY)
      throw new UsageError('set CLEARML_API_ACCESS_KEY and CLEARML_API_SECRET_KEY');
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}`);
    return 2;
  }
  const api = new EventsApi({
    url: parsed.url,
    accessKey: env.CLEARML_API_ACCESS_KEY,
    secretKey: env.CLEARML_API_SECRET_KEY,
  });
  try {
    const state = await importEsExport({ ...parsed, api, log: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(
      `${JSON.stringify({ documents: state.documents, added: state.added, refused: state.refused, skipped: state.skipped })}\n`,
    );
    return Object.keys(state.refused).length === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(
      `import stopped: ${(error as Error).message}\nrun the same command again to continue where it stopped\n`,
    );
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
