import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What the service imports at run time must be installed by `npm ci --omit=dev` (the image prunes dev
// dependencies), and must be a package's public entry, not a file in its dist/ that an `exports` map
// would close. Before issue 10: `ws` was a dev dependency only, and the tunnel imported
// @kubernetes/client-node/dist/web-socket-handler.js.

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { dependencies: Record<string, string> };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every runtime import specifier (type-only imports are erased and do not count). */
function runtimeImports(): { file: string; specifier: string }[] {
  const found: { file: string; specifier: string }[] = [];
  for (const file of sources(new URL('src', root).pathname)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
      if (match[1] || match[2]?.startsWith('.')) continue;
      found.push({ file: file.replace(new URL('src/', root).pathname, ''), specifier: match[2] as string });
    }
  }
  return found;
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

describe('runtime dependencies', () => {
  it('finds the imports it checks', () => {
    expect(runtimeImports().map((i) => i.specifier)).toEqual(expect.arrayContaining(['ws', 'yaml', '@kubernetes/client-node', 'etcd3']));
  });

  it('imports only node built-ins and packages declared in dependencies', () => {
    const undeclared = runtimeImports().filter(({ specifier }) => {
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return false;
      return !(packageOf(specifier) in pkg.dependencies);
    });
    expect(undeclared).toEqual([]);
  });

  it("never reaches into another package's files (dist/ or any other subpath)", () => {
    const deep = runtimeImports().filter(({ specifier }) => !specifier.startsWith('node:') && specifier !== packageOf(specifier));
    expect(deep).toEqual([]);
  });
});
