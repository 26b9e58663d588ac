import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { exec } from './exec.ts';

// `RUN npm ci` inside the build must reach the npm registry the way npm on this machine does. Here the
// registry is reached through an egress proxy that presents its own CA, which the Node in the image does
// not trust; so the host's npm settings (CA file, registry, proxies) are lent to the build's RUN steps as
// read-only bind mounts of a global npmrc. Nothing of it is copied into any image layer, and the Dockerfile
// itself stays the one a normal docker build uses.

/** Where the official Node image's npm reads its global config ($PREFIX/etc/npmrc). */
const IMAGE_NPMRC = '/usr/local/etc/npmrc';
const IMAGE_CA = '/run/etcd-probe-build/ca.pem';

async function npmConfig(key: string): Promise<string | null> {
  const value = (await exec('npm', ['config', 'get', key])).stdout.trim();
  return value === '' || value === 'null' || value === 'undefined' ? null : value;
}

/**
 * The CA bundle npm on this machine trusts: npm's own `cafile`, or else Node's built-in roots plus
 * NODE_EXTRA_CA_CERTS (which is what Node itself trusts then); null when neither is set.
 */
async function caBundle(workDir: string): Promise<string | null> {
  const cafile = await npmConfig('cafile');
  if (cafile && existsSync(cafile)) return cafile;
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (!extra || !existsSync(extra)) return null;
  const bundle = join(workDir, 'build-ca.pem');
  writeFileSync(bundle, `${rootCertificates.join('\n')}\n${readFileSync(extra, 'utf8')}`);
  return bundle;
}

/** The `--volume` flags for `buildah bud` that give RUN steps this machine's npm registry access. */
export async function registryAccessVolumes(workDir: string): Promise<string[]> {
  const lines = ['update-notifier=false', 'fund=false', 'audit=false'];
  const volumes: string[] = [];
  const cafile = await caBundle(workDir);
  if (cafile) {
    lines.push(`cafile=${IMAGE_CA}`);
    volumes.push('--volume', `${cafile}:${IMAGE_CA}:ro`);
  }
  for (const key of ['registry', 'proxy', 'https-proxy', 'noproxy']) {
    const value = await npmConfig(key);
    if (value) lines.push(`${key}=${value}`);
  }
  const npmrc = join(workDir, 'build-npmrc');
  writeFileSync(npmrc, `${lines.join('\n')}\n`);
  volumes.push('--volume', `${npmrc}:${IMAGE_NPMRC}:ro`);
  return volumes;
}
