// Log lines as a person and as a log pipeline see them: pretty-printed when standard output is
// a terminal (a real pseudo-terminal from util-linux `script`, in Debian's essential bsdutils),
// JSON lines otherwise; LOG_FORMAT forces either. Requires `npm run build` (npm test does it).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { baseEnv, exited, main, start, track } from './launched-process.js';
import { eventually } from '../harness/eventually.js';

const ANSI = /\x1b\[[0-9;]*m/g;
const PRETTY_READY = /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(clearml-query\/\d+\): ready$/m;

/** Runs the query target on a pseudo-terminal; Ctrl-C is typed into it like a person would. */
function onTerminal(env: Record<string, string>) {
  const command = `exec '${process.execPath}' '${main}' query`;
  // A terminal emulator sets TERM; colours need it (colorette, NO_COLOR turns them off).
  const child = track(
    spawn('script', ['-qfec', command, '/dev/null'], {
      env: { TERM: 'xterm-256color', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  // What the service wrote, without colours, carriage returns and the terminal's echo of the typed ^C.
  const text = () => output.replace(ANSI, '').replace(/\r/g, '').replace(/\^C/g, '');
  return { child, text, raw: () => output, typeCtrlC: () => child.stdin!.write('\x03') };
}

const env = (extra: Record<string, string> = {}) =>
  baseEnv({ API_PORT: '0', GRPC_PORT: '0', LOG_LEVEL: 'info', ...extra });

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('LOG_FORMAT=auto (the default)', () => {
  it('pretty-prints on a terminal: time, level, name/pid and message on one line, fields indented beneath; Ctrl-C stops it', async () => {
    const terminal = onTerminal(env());
    await eventually(async () => PRETTY_READY.test(terminal.text()), undefined, {
      timeoutMs: 30_000,
      what: 'the pretty ready line',
      retryErrors: true,
    });
    expect(terminal.raw()).toMatch(ANSI); // colours, for a terminal
    expect(terminal.text()).toMatch(
      /^\[[\d:.]+\] INFO \(clearml-query\/\d+\): HTTP API listening\n {4}host: "127\.0\.0\.1"$/m,
    );
    terminal.typeCtrlC();
    expect(await exited(terminal.child)).toBe(0);
    expect(terminal.text()).toMatch(/^\[[\d:.]+\] INFO \(clearml-query\/\d+\): stopping\n {4}signal: "SIGINT"$/m);
    expect(terminal.text()).toMatch(/^\[[\d:.]+\] INFO \(clearml-query\/\d+\): stopped$/m);
    expect(terminal.text()).not.toMatch(/^\{/m);
  });

  it('writes JSON lines when standard output is not a terminal', async () => {
    const { child, output } = start(main, ['query'], env());
    await eventually(async () => output().includes('"msg":"ready"'), undefined, {
      timeoutMs: 30_000,
      what: 'the ready line',
      retryErrors: true,
    });
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    const lines = jsonLines(output());
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['HTTP API listening', 'ready', 'stopping', 'stopped']),
    );
    for (const line of lines)
      expect(line).toMatchObject({
        level: expect.any(Number),
        time: expect.any(String),
        pid: child.pid,
        name: 'clearml-query',
      });
  });
});

describe('LOG_FORMAT forces a form', () => {
  it('json on a terminal', async () => {
    const terminal = onTerminal(env({ LOG_FORMAT: 'json' }));
    await eventually(async () => terminal.text().includes('"msg":"ready"'), undefined, {
      timeoutMs: 30_000,
      what: 'the ready line',
      retryErrors: true,
    });
    terminal.typeCtrlC();
    expect(await exited(terminal.child)).toBe(0);
    expect(jsonLines(terminal.text()).map((l) => l.msg)).toEqual(expect.arrayContaining(['ready', 'stopped']));
  });

  it('pretty without a terminal (no colours there)', async () => {
    const { child, output } = start(main, ['query'], env({ LOG_FORMAT: 'pretty' }));
    await eventually(async () => PRETTY_READY.test(output()), undefined, {
      timeoutMs: 30_000,
      what: 'the pretty ready line',
      retryErrors: true,
    });
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(output()).not.toMatch(ANSI);
    expect(output()).toMatch(/^\[[\d:.]+\] INFO \(clearml-query\/\d+\): stopped$/m);
  });
});
