// `npm run check:node [MAJOR...]`: the service on each Node.js line it supports besides
// the machine's (deploy/bootstrap/node-versions.ts; default 22 and 24), each the npm
// registry's `node` package: built with it, its unit tests run on it, and `npm start`
// smoke-tested on it (auth.login, events.add_batch, reads back; deploy/bootstrap/node-smoke.ts).
// The full suite on three versions would take too long for CI: `npm test` runs the smoke
// test on each (test/launcher/node-versions.test.ts).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ensureDependencies, root } from './prepare.mjs';

ensureDependencies();
build();
const dist = (file) => pathToFileURL(path.join(root, 'dist', 'deploy', 'bootstrap', file)).href;
const { CHECKED_NODE_MAJORS, nodeBinary } = await import(dist('node-versions.js'));
const { smokeTest } = await import(dist('node-smoke.js'));

const majors = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [...CHECKED_NODE_MAJORS];
const log = (line) => process.stdout.write(`[check:node] ${line}\n`);

function run(binary, args, what) {
  log(what);
  const started = Date.now();
  const result = spawnSync(binary, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status ?? result.signal})`);
  log(`${what}: passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const passed = [];
try {
  for (const major of majors) {
    const binary = nodeBinary(major);
    const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
    run(
      binary,
      [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      `Node.js ${version}: build`,
    );
    run(
      binary,
      [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'unit'],
      `Node.js ${version}: unit tests`,
    );
    await smokeTest(binary, { log });
    passed.push(version);
  }
} catch (error) {
  process.stderr.write(`[check:node] ${error.message}\n`);
  process.exitCode = 1;
} finally {
  // dist/ as the machine's Node.js builds it (tsc's output does not depend on the version; this keeps it so).
  build();
}
log(`passed on ${passed.join(', ') || 'none'}${process.exitCode ? ' (then failed, above)' : ''}`);
