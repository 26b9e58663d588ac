import { readFileSync } from 'node:fs';

/**
 * The Node flags of `npm start` (package.json's start script: `node <flags> dist/main.js`), so that the
 * demo and the bench run the service exactly as production does.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const match = /^node((?:\s+--\S+)*)\s+dist\/main\.js$/.exec(pkg.scripts.start.trim());
  if (!match) throw new Error(`package.json start script is not "node <flags> dist/main.js": ${pkg.scripts.start}`);
  return (match[1] ?? '').trim().split(/\s+/).filter(Boolean);
}
