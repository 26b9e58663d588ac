/** One flag of a command line with its value, or one positional argument. */
export interface ArgToken {
  /** The arguments it was read from: the flag, and its value when that was the next argument. */
  readonly args: readonly string[];
  /** The flag as written, without its value (`--timeout`, `-o`); a positional argument itself. */
  readonly raw: string;
  /** `timeout` for --timeout, `o` for -o; null for a positional argument. */
  readonly name: string | null;
  /** After `=` (or glued to a short flag that takes one), else the next argument when that is no flag. */
  readonly value: string | null;
  readonly short: boolean;
}

const LONG = /^--([^=]+)(?:=(.*))?$/s;

// The one tokenizer of the command line, for the command's own options (cli/command-line.ts) and for the
// settings (resolve-config.ts). Not util.parseArgs: its lenient mode takes "--policy=strict" as the value
// of a preceding "--timeout", and its strict mode stops at the first mistake, hiding the rest.

/**
 * Splits argv into flags and positional arguments. A value never starts with `-`, so a flag without
 * one is never taken for another's value. `valuedShorts` lists the short flags that take a value
 * (`-o json`, `-ojson`, `-o=json`); any other short flag is read whole (`-vv` is flag `vv`).
 */
export function tokenize(argv: readonly string[], valuedShorts: readonly string[] = []): ArgToken[] {
  const tokens: ArgToken[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const nextIsValue = next !== undefined && !next.startsWith('-');
    const long = LONG.exec(arg);
    if (long) {
      const inline = long[2];
      const takesNext = inline === undefined && nextIsValue;
      tokens.push({ args: takesNext ? [arg, next] : [arg], raw: `--${long[1]}`, name: long[1] as string, value: inline ?? (takesNext ? next : null), short: false });
      if (takesNext) i++;
    } else if (arg.startsWith('-') && arg !== '-') {
      const letter = arg.slice(1, 2);
      if (valuedShorts.includes(letter)) {
        const glued = arg.slice(2).replace(/^=/, '');
        const takesNext = arg.length === 2 && nextIsValue;
        tokens.push({ args: takesNext ? [arg, next] : [arg], raw: `-${letter}`, name: letter, value: arg.length > 2 ? glued : takesNext ? next : null, short: true });
        if (takesNext) i++;
      } else {
        tokens.push({ args: [arg], raw: arg, name: arg.slice(1), value: null, short: true });
      }
    } else {
      tokens.push({ args: [arg], raw: arg, name: null, value: null, short: false });
    }
  }
  return tokens;
}
