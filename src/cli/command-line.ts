import { tokenize } from '../config/argv.ts';
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

/** The command line split into the command, its own options, and the settings flags for resolveSettings. */
export interface CommandLine {
  readonly command: CommandName;
  readonly output: OutputFormat;
  /** `check --can-stop <member>`: answer whether that member (name or hex ID) may stop now. */
  readonly canStop: string | null;
  /** The arguments left for resolveSettings: the settings flags. */
  readonly settings: readonly string[];
  /** Set when -h/--help appears: help is printed instead of running anything, whatever else is wrong. */
  readonly help: HelpTopic | null;
  /** Set when -v/--version appears: the version is printed instead of running anything (help wins). */
  readonly version: boolean;
  readonly errors: readonly ConfigError[];
}

function readOutput(raw: string, source: string, errors: ConfigError[]): OutputFormat {
  const format = OUTPUT_FORMATS.find((f) => f === raw);
  if (format) return format;
  errors.push(new ConfigError(source, `'${raw}' is not an output format (use ${OUTPUT_FORMATS.join(' or ')})`));
  return 'table';
}

/**
 * Splits argv: an optional command first (a word, not a flag), then flags, read by config's tokenizer.
 * `check` takes -o/--output (`-o json`, `-ojson`, `--output=json`) and --can-stop itself; every other
 * flag goes to resolveSettings, so that the settings are decoded, and their errors worded, in one place
 * for every command.
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
  const tokens = tokenize(named ? argv.slice(1) : argv, command === 'check' ? ['o'] : []);
  const help = tokens.some((t) => t.args[0] === '-h' || t.args[0] === '--help');
  const version = tokens.some((t) => t.args[0] === '-v' || t.args[0] === '--version');
  let output: OutputFormat = 'table';
  let canStop: string | null = null;
  const settings: string[] = [];
  for (const token of tokens) {
    if (command === 'check' && token.raw === '--can-stop') {
      if (token.value === null || token.value === '') errors.push(new ConfigError('--can-stop', 'needs a member: its name or hex ID'));
      else canStop = token.value;
    } else if (command === 'check' && (token.raw === '-o' || token.raw === '--output')) {
      if (token.value === null) errors.push(new ConfigError(token.raw, `needs a value: ${OUTPUT_FORMATS.join(' or ')}`));
      else output = readOutput(token.value, token.raw, errors);
    } else {
      settings.push(...token.args);
    }
  }
  const topic: HelpTopic | null = help ? (known ?? 'overview') : null;
  return { command, output, canStop, settings, help: topic, version, errors };
}
