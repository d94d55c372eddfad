/**
 * The Node.js versions the service is checked on besides the one running
 * (README, "Node.js versions"): the current LTS lines. Each is the npm
 * registry's `node` package, a real Node.js binary that npm keeps in its
 * cache: no download from anywhere else, nothing installed system-wide.
 */
import { spawnSync } from 'node:child_process';

export const CHECKED_NODE_MAJORS = [22, 24] as const;

/** The path of the newest Node.js `major` from the npm registry (fetched into npm's cache on first use). */
export function nodeBinary(major: number): string {
  const result = spawnSync(
    'npm',
    ['exec', '--yes', `--package=node@${major}`, '--', 'node', '-p', 'process.execPath'],
    {
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  const binary = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !binary.startsWith('/')) {
    throw new Error(
      `could not get Node.js ${major} from the npm registry (npm exec --package=node@${major}): ${result.stderr.trim().slice(-500)}`,
    );
  }
  return binary;
}
