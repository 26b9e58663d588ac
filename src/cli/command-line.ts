import { ConfigError } from '../config/config-error.ts';

/** The commands: `serve` runs the HTTP service (the default), `check` runs one round and prints it. */
export type CommandName = 'serve' | 'check';

/** The commands, in the order help lists them. */
export const COMMANDS: readonly CommandName[] = ['serve', 'check'];

/** How `check` prints its round: an etcdctl-style table with the verdict, or the /healthz/etcd JSON. */
export type OutputFormat = 'table' | 'json';

const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json'];

/** Which help text was asked for: the overview (no command named) or a command's own. */
export type HelpTopic = 'overview' | CommandName;

/** The command line split into the command, its own options, and the settings flags for resolveConfig. */
export interface CommandLine {
  readonly command: CommandName;
  readonly output: OutputFormat;
  /** `check --can-stop <member>`: answer whether that member (name or hex ID) may stop now. */
  readonly canStop: string | null;
  /** The arguments left for resolveConfig: the settings flags. */
  readonly settings: readonly string[];
  /** Set when -h/--help appears: help is printed instead of running anything, whatever else is wrong. */
  readonly help: HelpTopic | null;
  /** Set when -v/--version appears: the version is printed instead of running anything (help wins). */
  readonly version: boolean;
  readonly errors: readonly ConfigError[];
}

const OUTPUT_FLAG = /^(?:-o|--output)(?:=(.*))?$/s;
const CAN_STOP_FLAG = /^--can-stop(?:=(.*))?$/s;

/** A flag's value: after `=`, or the next argument when that is no flag (then `used` says it was taken). */
function flagValue(inline: string | undefined, next: string | undefined): { value: string | undefined; used: boolean } {
  if (inline !== undefined) return { value: inline, used: false };
  if (next !== undefined && !next.startsWith('-')) return { value: next, used: true };
  return { value: undefined, used: false };
}

function readOutput(raw: string, source: string, errors: ConfigError[]): OutputFormat {
  const format = OUTPUT_FORMATS.find((f) => f === raw);
  if (format) return format;
  errors.push(new ConfigError(source, `'${raw}' is not an output format (use ${OUTPUT_FORMATS.join(' or ')})`));
  return 'table';
}

/**
 * Splits argv: an optional command first (a word, not a flag), then flags. `check` takes -o/--output
 * itself (`-o json`, `-ojson`, `--output=json`); every other flag goes to resolveConfig, so that the
 * settings are decoded, and their errors worded, in one place for every command.
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const errors: ConfigError[] = [];
  const first = argv[0];
  const named = first !== undefined && !first.startsWith('-');
  let command: CommandName = 'serve';
  const known = named ? COMMANDS.find((c) => c === first) : undefined;
  if (named) {
    if (known) command = known;
    else errors.push(new ConfigError(first, `unknown command (the commands are ${COMMANDS.join(' and ')}; etcd-probe --help)`));
  }
  const rest = named ? argv.slice(1) : [...argv];
  const help = rest.some((a) => a === '-h' || a === '--help');
  const version = rest.some((a) => a === '-v' || a === '--version');
  let output: OutputFormat = 'table';
  let canStop: string | null = null;
  const settings: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const canStopFlag = command === 'check' ? CAN_STOP_FLAG.exec(arg) : null;
    if (canStopFlag) {
      const { value, used } = flagValue(canStopFlag[1], rest[i + 1]);
      if (used) i++;
      if (value === undefined || value === '') errors.push(new ConfigError('--can-stop', 'needs a member: its name or hex ID'));
      else canStop = value;
      continue;
    }
    const outputFlag = command === 'check' ? OUTPUT_FLAG.exec(arg) ?? /^-o(.+)$/s.exec(arg) : null;
    if (!outputFlag) {
      settings.push(arg);
      continue;
    }
    const source = arg.startsWith('--') ? '--output' : '-o';
    const { value, used } = flagValue(outputFlag[1], rest[i + 1]);
    if (used) i++;
    if (value === undefined) errors.push(new ConfigError(source, `needs a value: ${OUTPUT_FORMATS.join(' or ')}`));
    else output = readOutput(value, source, errors);
  }
  const topic: HelpTopic | null = help ? (known ?? 'overview') : null;
  return { command, output, canStop, settings, help: topic, version, errors };
}
