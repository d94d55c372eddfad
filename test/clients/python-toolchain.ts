/**
 * What running the Python client needs on the machine: Debian's Python (its
 * grpcio and protobuf modules come from Debian; a pyenv `python3` on PATH
 * would not see them) and protoc with the gRPC plugin for the drift check of
 * the generated code. Installed by the project's apt-get path when missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianPackages, findBinary } from '../../deploy/local-stack/install-packages.js';

export const PYTHON = '/usr/bin/python3';
export const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../clients/python');

const imports = (modules: string) => () =>
  spawnSync(PYTHON, ['-c', `import ${modules}`], { stdio: 'ignore' }).status === 0;

export const PYTHON_CLIENT_PACKAGES = [
  { name: 'python3', present: () => existsSync(PYTHON) },
  { name: 'python3-grpcio', present: imports('grpc') },
  { name: 'python3-protobuf', present: imports('google.protobuf') },
  { name: 'protobuf-compiler', present: () => findBinary('protoc') !== undefined },
  { name: 'protobuf-compiler-grpc', present: () => findBinary('grpc_python_plugin') !== undefined },
];

export const ensurePythonClientToolchain = (log: (line: string) => void = console.log) =>
  ensureDebianPackages(log, PYTHON_CLIENT_PACKAGES);

/** Runs Debian's Python with the client package importable. */
export function pythonEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: CLIENT_DIR, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' };
}
