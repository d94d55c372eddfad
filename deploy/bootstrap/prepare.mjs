// Shared by `npm start` and `npm test`: make sure npm dependencies are
// installed and the TypeScript is built, with nothing but Node itself.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(command, args, what) {
  process.stdout.write(`> ${what}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    process.stderr.write(`${what} failed (exit ${result.status ?? result.signal}).\n`);
    process.exit(result.status ?? 1);
  }
}

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

export function ensureDependencies() {
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (!existsSync(installed) || mtime(lock) > mtime(installed)) {
    run(
      'npm',
      existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'],
      'installing npm dependencies',
    );
  }
}

export function build() {
  run(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    'building (tsc)',
  );
}
