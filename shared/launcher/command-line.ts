/**
 * The command line of the executables (the launcher, `npm start`, `npm run
 * start:cluster`): `--help` and `--version` anywhere win, any other option
 * is a mistake, the rest are positional (the launcher's target).
 */
import { formatVariableDocs, type VariableDoc } from '../config/config-variables.js';
import { buildInfo, versionLine } from '../observability/build-info.js';

export type CommandLine =
  { kind: 'run'; positional: string[] } | { kind: 'help' } | { kind: 'version' } | { kind: 'mistake'; message: string };

export function parseCommandLine(args: readonly string[]): CommandLine {
  if (args.some((a) => a === '-h' || a === '--help')) return { kind: 'help' };
  if (args.some((a) => a === '-V' || a === '--version')) return { kind: 'version' };
  const option = args.find((a) => a.startsWith('-'));
  if (option !== undefined)
    return { kind: 'mistake', message: `Unknown option "${option}": expected --help or --version` };
  return { kind: 'run', positional: [...args] };
}

export interface HelpParts {
  /** Usage lines, e.g. `node dist/shared/launcher/main.js [TARGET] [OPTIONS]`. */
  usage: string[];
  /** Positional choices and what each does, when there are any. */
  choices?: { title: string; items: Readonly<Record<string, string>> };
  variables: readonly VariableDoc[];
}

export function helpText(parts: HelpParts): string {
  const lines = [
    `${buildInfo.name} ${buildInfo.version}: ClearML-compatible events and reports service`,
    '',
    'Usage:',
    ...parts.usage.map((u) => `  ${u}`),
    '',
  ];
  if (parts.choices) {
    const width = Math.max(...Object.keys(parts.choices.items).map((k) => k.length));
    lines.push(
      `${parts.choices.title}:`,
      ...Object.entries(parts.choices.items).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
      '',
    );
  }
  lines.push(
    'Options:',
    '  -h, --help     Show this help and exit',
    '  -V, --version  Print the name and version and exit',
    '',
    'Configuration: environment variables, or a JSON object of them in the file named',
    'by CONFIG_FILE (the environment wins; empty values count as unset). More in',
    'docs/configuration.md.',
    ...formatVariableDocs(parts.variables),
    '',
  );
  return lines.join('\n');
}

/**
 * What an executable does with its command line before anything starts:
 * prints the help or the version and exits 0, refuses a mistake with exit
 * code 2; otherwise answers the positional arguments.
 */
export function positionalOrExit(args: readonly string[], help: () => HelpParts, hint: string): string[] {
  const commandLine = parseCommandLine(args);
  if (commandLine.kind === 'help') {
    process.stdout.write(helpText(help()));
    process.exit(0);
  }
  if (commandLine.kind === 'version') {
    process.stdout.write(`${versionLine()}\n`);
    process.exit(0);
  }
  if (commandLine.kind === 'mistake') exitWithMistake(commandLine.message, hint);
  return commandLine.positional;
}

export function exitWithMistake(message: string, hint: string): never {
  process.stderr.write(`${message}\n(${hint})\n`);
  process.exit(2);
}
