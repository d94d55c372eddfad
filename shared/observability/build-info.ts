/**
 * What this build is, for `clearml_build_info` and `--version`: the package
 * name and version, the Node.js version running it. Read once from
 * package.json, which sits two folders up from the source and three from
 * its build in dist/.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'clearml-metrics-backend';

function packageVersion(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(here, up, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not there: the other layout
    }
  }
  return 'unknown';
}

export const buildInfo = { name: PACKAGE_NAME, version: packageVersion(), nodeVersion: process.version } as const;

/** The `--version` line. */
export function versionLine(): string {
  return `${buildInfo.name} ${buildInfo.version} (Node.js ${buildInfo.nodeVersion})`;
}
