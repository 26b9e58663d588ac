import { parseArgs } from 'node:util';
import { ConfigError, ValueProblem } from './config-error.ts';
import type { Config } from './config.ts';
import { SETTINGS, type Setting } from './settings.ts';
import { unknownVariables } from './unknown-variables.ts';
import { certificateWarnings, loadTlsMaterial, type TlsFiles, type TlsMaterial } from '../tls/tls-files.ts';

/** What the process was started with: its environment and its command-line arguments. */
export interface ConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly argv: readonly string[];
  /** The time against which certificate validity is checked. */
  readonly now: Date;
}

/** The outcome of resolving: a frozen Config with the source of each set value, or every problem found. */
export type ConfigResult =
  | {
      readonly ok: true;
      readonly config: Config;
      /** The variable or flag each non-default value came from, e.g. `{certFile: '--cert'}`. */
      readonly sources: Readonly<Partial<Record<keyof Config, string>>>;
      /** The TLS files with the setting that names each, for re-reading them later. */
      readonly tlsFiles: TlsFiles;
      /** The TLS material as read and checked now; kept out of Config so that Config can be logged. */
      readonly tls: TlsMaterial;
      readonly warnings: readonly string[];
      readonly help: boolean;
    }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

interface RawValue {
  readonly text: string;
  readonly source: string;
}

function flagProblem(error: unknown): ConfigError {
  const { code, message } = error as { code?: string; message: string };
  const flag = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? 'arguments';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new ConfigError(flag, 'unknown flag (etcd-probe --help lists them)');
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return new ConfigError(flag, 'needs a value, e.g. --timeout=2s');
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return new ConfigError(/'([^']+)'/.exec(message)?.[1] ?? 'arguments', 'unexpected argument; settings are flags like --endpoints=...');
  return new ConfigError(flag, message);
}

function readFlags(argv: readonly string[]): { values: Map<string, RawValue>; help: boolean } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const s of SETTINGS) options[s.flag] = { type: 'string' };
  const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  const values = new Map<string, RawValue>();
  for (const s of SETTINGS) {
    const text = parsed.values[s.flag];
    if (typeof text === 'string') values.set(s.key, { text, source: `--${s.flag}` });
  }
  return { values, help: parsed.values.help === true };
}

function pick(setting: Setting, flags: Map<string, RawValue>, env: ConfigInput['env']): RawValue | null {
  const fromFlag = flags.get(setting.key);
  if (fromFlag) return fromFlag;
  const fromEnv = env[setting.env];
  // An empty variable counts as unset: charts and compose files often render empty strings.
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { text: fromEnv, source: setting.env };
  return null;
}

/** Decodes the environment and flags strictly, applies defaults, validates, and freezes the result. */
export function resolveConfig(input: ConfigInput): ConfigResult {
  let flags = new Map<string, RawValue>();
  let help = false;
  const errors: ConfigError[] = [];
  try {
    ({ values: flags, help } = readFlags(input.argv));
  } catch (error) {
    errors.push(flagProblem(error));
  }
  const unknown = unknownVariables(input.env);
  errors.push(...unknown.errors);
  const values: Record<string, unknown> = {};
  const sources: Partial<Record<keyof Config, string>> = {};
  for (const s of SETTINGS) {
    const raw = pick(s, flags, input.env);
    if (raw === null) {
      values[s.key] = s.fallback === null ? null : s.parse(s.fallback);
      continue;
    }
    try {
      values[s.key] = s.parse(raw.text);
      sources[s.key] = raw.source;
    } catch (error) {
      if (!(error instanceof ValueProblem)) throw error;
      errors.push(new ConfigError(raw.source, error.message));
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const config: Config = Object.freeze({
    ...(values as unknown as Config),
    endpoints: Object.freeze([...(values.endpoints as string[])]),
  });
  const tlsFiles: TlsFiles = {
    ca: { path: config.caFile, source: sourceOf('caFile', sources) },
    cert: { path: config.certFile, source: sourceOf('certFile', sources) },
    key: { path: config.keyFile, source: sourceOf('keyFile', sources) },
  };
  let tls: TlsMaterial;
  try {
    tls = loadTlsMaterial(tlsFiles);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { ok: false, errors: [error] };
  }
  const warnings = [...unknown.warnings, ...certificateWarnings(tls, input.now)];
  if ((tls.ca || tls.cert) && config.endpoints.every((e) => e.startsWith('http:'))) {
    warnings.push(`TLS files are set but every endpoint in ${sourceOf('endpoints', sources)} is http://, so they are not used`);
  }
  return { ok: true, config, sources, tlsFiles, tls, warnings, help };
}

/** The name of a setting as the user gave it (flag or variable), or its variable when it was defaulted. */
export function sourceOf(key: keyof Config, sources: Partial<Record<keyof Config, string>>): string {
  return sources[key] ?? (SETTINGS.find((s) => s.key === key) as Setting).env;
}
