/** A problem with one setting: its message names the variable (or flag) and what is wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The variable or flag at fault, e.g. `ETCD_PROBE_CERT` or `--cert`. */
  readonly source: string;
  /** What is wrong, without the source, e.g. `cannot read /x.crt: no such file`. */
  readonly problem: string;

  constructor(source: string, problem: string) {
    super(`${source}: ${problem}`);
    this.source = source;
    this.problem = problem;
  }
}

/** Thrown by a value parser; the resolver prefixes it with the setting's source. */
export class ValueProblem extends Error {
  override readonly name = 'ValueProblem';
}
