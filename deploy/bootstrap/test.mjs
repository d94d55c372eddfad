// `npm test`: install what is missing, build (tests start built targets as
// child processes), then run the whole vitest suite; the suite starts its
// own throwaway stack. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build, ensureDependencies, root } from './prepare.mjs';

ensureDependencies();
build();
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
process.exit(result.status ?? 1);
