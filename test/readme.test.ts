import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileKeyOf } from '../src/cli/read-clusters-file.ts';
import { JUDGE_KEYS, REACH_KEYS, SETTINGS } from '../src/config/settings.ts';
import { openapi } from './helpers/openapi.ts';

// The README is where users look: it must keep naming every setting and route (reasons: test/docs/).

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README stays in step with the code', () => {
  it.each(SETTINGS.map((s) => [s.env, s.flag, s.scope]))('documents %s (--%s) with its scope, %s', (env, flag, scope) => {
    expect(readme).toMatch(new RegExp(`^\\| \`${env}\` \\| \`--${flag}\` \\| (?:[^|\`]|\`[^\`]*\`)*? \\| ${scope} \\|`, 'm'));
  });

  it('lists in docs/fleet.md the keys a clusters file takes, by scope', () => {
    const fleet = readFileSync(new URL('../docs/fleet.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const listed = (keys: readonly (typeof SETTINGS)[number]['key'][]) => keys.map((k) => `\`${fileKeyOf(k)}\``);
    const judge = /Overrides of how a cluster is probed and judged \(scope \*judge\*\): ([^.]*)\./.exec(fleet)?.[1];
    expect(judge?.split(', ')).toEqual(listed(JUDGE_KEYS));
    for (const key of listed(REACH_KEYS)) expect(fleet).toContain(key);
  });

  it.each(Object.keys(openapi.paths))('mentions route %s', (path) => {
    expect(readme).toContain(path);
  });

  it('names the two commands', () => {
    expect(readme).toContain('npm run demo');
    expect(readme).toContain('npm test');
  });
});
