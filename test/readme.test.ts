import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config/settings.ts';
import { REASONS } from '../src/probe/reason-catalogue.ts';
import { openapi } from './helpers/openapi.ts';

// The README is where users look: it must keep naming every setting, reason and route.

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const reasons = readFileSync(new URL('../docs/reasons.md', import.meta.url), 'utf8');

describe('README stays in step with the code', () => {
  it.each(SETTINGS.map((s) => [s.env, s.flag]))('documents %s (--%s)', (env, flag) => {
    expect(readme).toMatch(new RegExp(`^\\| \`${env}\` \\| \`--${flag}\` \\|`, 'm'));
  });

  it.each(Object.entries(REASONS).map(([code, r]) => [code, r.severity]))('documents reason %s as %s', (code, severity) => {
    expect(reasons).toMatch(new RegExp(`^\\| \`${code}\` \\| ${severity} \\|`, 'm'));
  });

  it.each(Object.keys(openapi.paths))('mentions route %s', (path) => {
    expect(readme).toContain(path);
  });

  it('names the two commands', () => {
    expect(readme).toContain('npm run demo');
    expect(readme).toContain('npm test');
  });
});
