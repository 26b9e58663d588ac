import { readFileSync } from 'node:fs';

/** package.json, two levels up from both src/cli and dist/cli (the image keeps it at /app/package.json). */
const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** The version in package.json: what `etcd-probe --version` prints. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error(`${PACKAGE_JSON.pathname} has no version`);
  return pkg.version;
}
