/**
 * Makes sure the server binaries of the local stack exist, installing the
 * Debian packages when they do not. We only need the binaries: the packages'
 * own services are never used (Debian's policy-rc.d may even keep them from
 * starting), the launcher runs its own processes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { MANUAL_INSTALL_COMMAND, SERVER_NAMES, STACK_SERVERS, type StackServer } from './stack-servers.js';

export type StackBinaries = Partial<Record<StackServer, string>>;

/** A Debian package some tool of the project needs, and how to tell it is there. */
export interface DebianPackage {
  readonly name: string;
  readonly present: () => boolean;
}

// Non-root users often lack the sbin directories on PATH, and nats-server
// lives in /usr/sbin on Debian.
const EXTRA_BINARY_DIRS = ['/usr/sbin', '/usr/bin'];

const EXAMPLE_URLS: Readonly<Record<StackServer, string>> = {
  nats: 'nats://host:4222',
  influxdb: 'http://host:8086',
  redis: 'redis://host:6379',
};

// Concurrent stacks (the tests start two at once) must share one apt run:
// two apt-get processes would fight over the dpkg lock.
let installing: Promise<void> | undefined;

export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...EXTRA_BINARY_DIRS];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export async function ensureStackPackages(
  log: (line: string) => void,
  servers: readonly StackServer[] = STACK_SERVERS,
): Promise<StackBinaries> {
  let missing = missingServers(servers);
  if (missing.length > 0) {
    log(`missing ${missing.map((s) => SERVER_NAMES[s].binary).join(', ')}: installing Debian packages`);
    installing ??= installPackages(log, missing).finally(() => {
      installing = undefined;
    });
    await installing;
    missing = missingServers(servers);
    if (missing.length > 0) {
      throw manualInstallError(missing, 'apt-get finished but the binaries are still not found');
    }
  }
  return Object.fromEntries(servers.map((s) => [s, findBinary(SERVER_NAMES[s].binary)]));
}

/**
 * Installs the Debian packages that are missing (apt-get, as for the stack's
 * servers), for tools beyond the stack: the Python client's protoc and
 * grpcio, for example. Throws with the manual command when it cannot.
 */
export async function ensureDebianPackages(
  log: (line: string) => void,
  packages: readonly DebianPackage[],
): Promise<void> {
  const missing = () => packages.filter((p) => !p.present()).map((p) => p.name);
  const wanted = missing();
  if (wanted.length === 0) return;
  log(`missing Debian packages ${wanted.join(', ')}: installing`);
  const manual = (reason: string) =>
    new Error(
      `Cannot install ${wanted.join(', ')}: ${reason}.\nInstall them by hand:\n    sudo apt-get install ${wanted.join(' ')}`,
    );
  const prefix = findBinary('apt-get') ? privilegePrefix() : undefined;
  if (!prefix) throw manual('apt-get as root (or sudo without a password) is not available');
  // Another apt-get (the stack's servers, another tool) may be running: wait for dpkg's lock rather than fail.
  for (const args of [
    ['-o', 'DPkg::Lock::Timeout=600', 'update'],
    ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', ...wanted],
  ]) {
    const code = await runStreaming([...prefix, 'apt-get', ...args], log);
    if (code !== 0) throw manual(`"apt-get ${args.join(' ')}" failed with exit code ${code}`);
  }
  const still = missing();
  if (still.length > 0) throw manual(`apt-get finished but ${still.join(', ')} still missing`);
}

function missingServers(servers: readonly StackServer[]): StackServer[] {
  return servers.filter((s) => findBinary(SERVER_NAMES[s].binary) === undefined);
}

async function installPackages(log: (line: string) => void, missing: StackServer[]): Promise<void> {
  if (!findBinary('apt-get')) {
    throw manualInstallError(missing, 'apt-get is not available on this machine');
  }
  const prefix = privilegePrefix();
  if (!prefix) {
    throw manualInstallError(missing, 'installing needs root, and sudo without a password is not available');
  }
  const packages = STACK_SERVERS.map((s) => SERVER_NAMES[s].debianPackage);
  for (const args of [['update'], ['install', '-y', ...packages]]) {
    const code = await runStreaming([...prefix, 'apt-get', ...args], log);
    if (code !== 0) {
      throw manualInstallError(missing, `"apt-get ${args.join(' ')}" failed with exit code ${code}`);
    }
  }
}

/**
 * The command prefix that runs apt-get as root, or undefined when we cannot.
 * sudo resets the environment, hence `env` to carry DEBIAN_FRONTEND through.
 */
function privilegePrefix(): string[] | undefined {
  const noninteractive = 'DEBIAN_FRONTEND=noninteractive';
  if (process.getuid?.() === 0) return ['env', noninteractive];
  if (!findBinary('sudo')) return undefined;
  const probe = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? ['sudo', '-n', 'env', noninteractive] : undefined;
}

function runStreaming(command: string[], log: (line: string) => void): Promise<number> {
  log(`running: ${command.join(' ')}`);
  return new Promise((resolve, reject) => {
    const [program, ...args] = command as [string, ...string[]];
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => log(`apt-get: ${line}`));
    }
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

function manualInstallError(missing: readonly StackServer[], reason: string): Error {
  const binaries = missing.map((s) => SERVER_NAMES[s].binary).join(', ');
  const urlVars = missing.map((s) => SERVER_NAMES[s].urlVar).join(', ');
  const examples = missing.map((s) => `${SERVER_NAMES[s].urlVar}=${EXAMPLE_URLS[s]}`).join(' ');
  return new Error(
    `Cannot install the local stack's servers (missing: ${binaries}): ${reason}.\n` +
      `Install them by hand:\n    ${MANUAL_INSTALL_COMMAND}\n` +
      `or use servers you already run by setting ${urlVars} (for example ${examples}).`,
  );
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
