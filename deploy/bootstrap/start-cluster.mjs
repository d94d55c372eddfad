// `npm run start:cluster`: install what is missing, build, then run the
// split deployment on clustered stores (deploy/bootstrap/run-cluster.ts).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ensureDependencies, root } from './prepare.mjs';

ensureDependencies();
build();
await import(pathToFileURL(path.join(root, 'dist', 'deploy', 'bootstrap', 'run-cluster.js')).href);
