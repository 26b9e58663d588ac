import { readFileSync } from 'node:fs';

/**
 * The Node flags of `npm start` (scripts/setup/run.sh's start command: `exec node <flags> dist/main.js "$@"`),
 * so that the demo, the bench and the image run the service exactly as production does.
 */
export function startFlags(): string[] {
  const script = readFileSync(new URL('../../scripts/setup/run.sh', import.meta.url), 'utf8');
  const match = /^\s*exec node((?:\s+--\S+)*)\s+dist\/main\.js "\$@"$/m.exec(script);
  if (!match) throw new Error('scripts/setup/run.sh has no start line "exec node <flags> dist/main.js \"$@\""');
  return (match[1] ?? '').trim().split(/\s+/).filter(Boolean);
}
