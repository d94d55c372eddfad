// `npm start`: install what is missing, build, then run the local stack and
// the `all` target (deploy/bootstrap/run-local.ts).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ensureDependencies, root } from './prepare.mjs';

ensureDependencies();
build();
await import(pathToFileURL(path.join(root, 'dist', 'deploy', 'bootstrap', 'run-local.js')).href);
