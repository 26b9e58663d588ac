import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.ts';
import { usage } from '../../src/cli/usage.ts';

describe('usage', () => {
  const lines = usage().split('\n');

  it.each(SETTINGS.map((s) => [s.flag, s]))('lists --%s with its variable, its help and its default on one line', (_flag, s) => {
    const line = lines.find((l) => l.trimStart().startsWith(`--${s.flag} `));
    expect(line).toBeDefined();
    expect(line).toContain(` ${s.env} `);
    expect(line).toContain(`[${s.scope}] ${s.help}`);
    if (s.fallback === null) expect(line).not.toContain('(default ');
    else expect(line).toContain(`(default ${s.fallback})`);
  });

  it('has one row per setting, in the settings order', () => {
    const rows = lines.filter((l) => /^ {2}--[a-z-]+ /.test(l));
    expect(rows.map((l) => l.trim().split(/\s+/)[0])).toEqual(SETTINGS.map((s) => `--${s.flag}`));
  });

  it('shows the defaults a user would write', () => {
    expect(usage()).toContain('(default http://127.0.0.1:2379)');
    expect(usage()).toContain('(default 2GiB)');
  });

  it('names --help, the precedence of flags, and the exit codes', () => {
    expect(lines[0]).toBe('Usage: etcd-probe [serve|check] [flags]');
    expect(lines.some((l) => /^ {2}-h, --help\s+show this help$/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {2}-v, --version\s+print the version$/.test(l))).toBe(true);
    expect(usage()).toContain('a flag wins over the variable');
    expect(usage()).toContain('78 on a configuration error');
  });
});

describe('usage of each command', () => {
  it('lists every setting for serve too', () => {
    const rows = usage('serve')
      .split('\n')
      .filter((l) => /^ {2}--[a-z-]+ /.test(l));
    expect(rows.map((l) => l.trim().split(/\s+/)[0])).toEqual(SETTINGS.map((s) => `--${s.flag}`));
  });

  it("lists in check's help only the settings check uses: reach, judge and the log level (issue 26)", () => {
    const flags = usage('check')
      .split('\n')
      .filter((l) => /^ {2}--[a-z-]+ /.test(l))
      .map((l) => l.trim().split(/\s+/)[0]);
    expect(flags).toEqual(SETTINGS.filter((s) => s.scope === 'reach' || s.scope === 'judge' || s.key === 'logLevel').map((s) => `--${s.flag}`));
    for (const serviceOnly of ['--listen', '--auth-token-file', '--clusters-file', '--shard', '--tls-cert']) expect(flags).not.toContain(serviceOnly);
    expect(flags.length).toBeLessThan(SETTINGS.length - 15);
    expect(usage('check')).toContain('etcd-probe serve --help lists the rest.');
  });

  it('names the commands in the overview and the exit codes of check in its own help', () => {
    expect(usage()).toMatch(/^ {2}serve +\(the default\)/m);
    expect(usage()).toMatch(/^ {2}check +probe the cluster once/m);
    expect(usage('serve').split('\n')[0]).toBe('Usage: etcd-probe [serve] [flags]');
    expect(usage('check').split('\n')[0]).toBe('Usage: etcd-probe check [-o table|json] [--can-stop MEMBER] [flags]');
    expect(usage('check')).toMatch(/^ {6}--can-stop MEMBER +whether MEMBER/m);
    expect(usage('check')).toContain('With --can-stop: 0 safe to stop, 1 not safe, 2 the cluster is unhealthy, 78 unknown member.');
    expect(usage('check')).toMatch(/^ {2}-o, --output FORMAT +table \(default\) or json/m);
    expect(usage('check')).toContain('0 healthy, 1 degraded, 2 unhealthy');
    // One round has no history, said where a person looks (issue 26).
    expect(usage('check')).toMatch(/One round has no history: .*MEMBER_FLAPPING,\nMEMBER_STALLED, DB_QUOTA_EXHAUSTION_SOON, DATA_DIVERGED\) only the service says/);
  });
});
