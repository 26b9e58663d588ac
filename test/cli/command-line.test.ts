import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/command-line.ts';

const messages = (argv: string[]) => parseCommandLine(argv).errors.map((e) => e.message);

describe('parseCommandLine', () => {
  it('runs serve when no command is named, passing every flag on to the settings', () => {
    expect(parseCommandLine([])).toEqual({ command: 'serve', output: 'table', canStop: null, settings: [], help: null, version: false, errors: [] });
    const line = parseCommandLine(['--endpoints', 'http://a:2379', '--timeout=1s']);
    expect(line.command).toBe('serve');
    expect(line.settings).toEqual(['--endpoints', 'http://a:2379', '--timeout=1s']);
  });

  it('takes the first word as the command', () => {
    expect(parseCommandLine(['serve', '--policy=strict'])).toMatchObject({ command: 'serve', settings: ['--policy=strict'] });
    expect(parseCommandLine(['check', '--endpoints=http://a:2379'])).toMatchObject({ command: 'check', settings: ['--endpoints=http://a:2379'] });
  });

  it.each([
    [['check', '-o', 'json']],
    [['check', '-ojson']],
    [['check', '-o=json']],
    [['check', '--output', 'json']],
    [['check', '--output=json']],
    [['check', '--endpoints=http://a:2379', '-o', 'json', '--timeout=1s']],
  ])('reads the output format of check from %j and keeps it out of the settings', (argv) => {
    const line = parseCommandLine(argv);
    expect(line.output).toBe('json');
    expect(line.errors).toEqual([]);
    expect(line.settings.some((a) => a.includes('json') || a.startsWith('-o'))).toBe(false);
  });

  it('defaults check to the table and accepts -o table', () => {
    expect(parseCommandLine(['check']).output).toBe('table');
    expect(parseCommandLine(['check', '-o', 'table']).output).toBe('table');
  });

  it('names the option and the allowed formats when the format is wrong or missing', () => {
    expect(messages(['check', '-o', 'yaml'])).toEqual(["-o: 'yaml' is not an output format (use table or json)"]);
    expect(messages(['check', '--output=wide'])).toEqual(["--output: 'wide' is not an output format (use table or json)"]);
    expect(messages(['check', '--output'])).toEqual(['--output: needs a value: table or json']);
    expect(messages(['check', '-o', '--timeout=1s'])).toEqual(['-o: needs a value: table or json']);
  });

  it('leaves -o to the settings under serve, where it is an unknown flag', () => {
    const line = parseCommandLine(['-o', 'json']);
    expect(line.output).toBe('table');
    expect(line.settings).toEqual(['-o', 'json']);
  });

  it('names an unknown command and the real ones', () => {
    expect(messages(['chek', '--endpoints=http://a:2379'])).toEqual(['chek: unknown command (the commands are serve and check; etcd-probe --help)']);
  });

  it.each([
    [['--help'], 'overview'],
    [['-h'], 'overview'],
    [['serve', '--help'], 'serve'],
    [['check', '-h'], 'check'],
    [['check', '-o', 'yaml', '--help'], 'check'],
    [['nope', '--help'], 'overview'],
    [['--timeout=abc', '--help'], 'overview'],
  ])('asks for help from %j: %s', (argv, topic) => {
    expect(parseCommandLine(argv).help).toBe(topic);
  });

  it.each([[['--version']], [['-v']], [['check', '--version']], [['--timeout=abc', '-v']]])('asks for the version from %j', (argv) => {
    expect(parseCommandLine(argv).version).toBe(true);
  });

  it('does not take a value that merely contains "version" for the flag', () => {
    expect(parseCommandLine(['--endpoints=http://version:2379']).version).toBe(false);
    expect(parseCommandLine(['-vv']).version).toBe(false);
  });
});

describe('check --can-stop', () => {
  it.each([
    [['check', '--can-stop', 'm2'], 'm2'],
    [['check', '--can-stop=8e9e05c52164694d', '--timeout=1s'], '8e9e05c52164694d'],
  ])('takes the member from %j', (argv, member) => {
    const line = parseCommandLine(argv);
    expect(line.canStop).toBe(member);
    expect(line.errors).toEqual([]);
    expect(line.settings).not.toContain(member);
  });

  it('needs a member, and belongs to check only', () => {
    expect(messages(['check', '--can-stop'])).toEqual(['--can-stop: needs a member: its name or hex ID']);
    expect(messages(['check', '--can-stop', '--timeout=1s'])).toEqual(['--can-stop: needs a member: its name or hex ID']);
    expect(parseCommandLine(['serve', '--can-stop=m1']).settings).toEqual(['--can-stop=m1']);
  });
});
