import { ConfigError, ValueProblem } from './config-error.ts';
import type { Config, InClusterAccess } from './config.ts';
import { resolveInCluster, SERVICE_ACCOUNT_DIR } from './in-cluster.ts';
import { modeConflicts, modeOf } from './mode-rules.ts';
import { SETTINGS, type Setting, type SettingKey } from './settings.ts';
import { unknownVariables } from './unknown-variables.ts';
import { readTokenFile, type LoadedToken } from '../auth/bearer-token.ts';
import { certificateWarnings, checkTlsFiles, type FileSetting, type LoadedTls, type TlsFiles, type TlsMaterial } from '../tls/tls-files.ts';

/** What the process was started with: its environment and its command-line arguments. */
export interface ConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly argv: readonly string[];
  /** The time against which certificate validity is checked. */
  readonly now: Date;
  /** Where the pod's service account is mounted; SERVICE_ACCOUNT_DIR by default (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
}

/** The outcome of resolving: a frozen Config with the source of each set value, or every problem found. */
export type ConfigResult =
  | {
      readonly ok: true;
      readonly config: Config;
      /** The variable or flag each non-default value came from, e.g. `{certFile: '--cert'}`. */
      readonly sources: Readonly<Partial<Record<SettingKey, string>>>;
      /** The TLS files with the setting that names each, for re-reading them later. */
      readonly tlsFiles: TlsFiles;
      /** The TLS material as read and checked now; kept out of Config so that Config can be logged. */
      readonly tls: TlsMaterial;
      /** How to reach the API server from inside the pod, when a setting says `in-cluster`; else null. */
      readonly inCluster: InClusterAccess | null;
      /** The listener's files (ca: the client CA) and material as read now; null: plain HTTP. */
      readonly listenerTls: LoadedTls | null;
      /** The bearer token file and token as read now; null: no route is guarded. Never log it. */
      readonly auth: LoadedToken | null;
      readonly warnings: readonly string[];
      readonly help: boolean;
    }
  | { readonly ok: false; readonly errors: readonly ConfigError[]; readonly help: boolean };

interface RawValue {
  readonly text: string;
  readonly source: string;
}

interface FlagToken {
  readonly raw: string;
  readonly name: string | null;
  readonly value: string | null;
}

// A small tokenizer rather than util.parseArgs: its lenient mode takes "--policy=strict" as the value
// of a preceding "--timeout", and its strict mode stops at the first mistake, hiding the rest.
function tokenize(argv: readonly string[]): FlagToken[] {
  const tokens: FlagToken[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (long) {
      const next = argv[i + 1];
      const takesNext = long[2] === undefined && next !== undefined && !next.startsWith('-');
      tokens.push({ raw: `--${long[1]}`, name: long[1] as string, value: long[2] ?? (takesNext ? next : null) });
      if (takesNext) i++;
    } else if (arg === '-h') {
      tokens.push({ raw: arg, name: 'help', value: null });
    } else {
      tokens.push({ raw: arg, name: arg.startsWith('-') && arg !== '-' ? arg : null, value: null });
    }
  }
  return tokens;
}

function readFlags(argv: readonly string[]): { values: Map<string, RawValue>; help: boolean; errors: ConfigError[] } {
  const values = new Map<string, RawValue>();
  const errors: ConfigError[] = [];
  let help = false;
  for (const token of tokenize(argv)) {
    if (token.name === null) {
      errors.push(new ConfigError(token.raw, 'unexpected argument; settings are flags like --endpoints=...'));
      continue;
    }
    if (token.name === 'help') {
      help = true;
      continue;
    }
    const setting = SETTINGS.find((s) => s.flag === token.name);
    if (!setting) errors.push(new ConfigError(token.raw, 'unknown flag (etcd-probe --help lists them)'));
    else if (token.value === null) {
      errors.push(new ConfigError(token.raw, `needs a value, e.g. ${token.raw}=${setting.fallback ?? '...'}`));
    } else values.set(setting.key, { text: token.value, source: token.raw });
  }
  return { values, help, errors };
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
  const { values: flags, help, errors } = readFlags(input.argv);
  const unknown = unknownVariables(input.env);
  errors.push(...unknown.errors);
  const values: Record<string, unknown> = {};
  const sources: Partial<Record<SettingKey, string>> = {};
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
  const tlsFiles: TlsFiles = {
    ca: { path: (values.caFile as string | null) ?? null, source: sourceOf('caFile', sources) },
    cert: { path: (values.certFile as string | null) ?? null, source: sourceOf('certFile', sources) },
    key: { path: (values.keyFile as string | null) ?? null, source: sourceOf('keyFile', sources) },
  };
  // The files are checked even when other settings are bad, so that one run reports every problem.
  const { material: tls, errors: tlsErrors } = checkTlsFiles(tlsFiles);
  errors.push(...tlsErrors);
  const listener = checkListenerFiles(values, sources);
  errors.push(...listener.errors);
  const authTokenFile: FileSetting = { path: (values.authTokenFile as string | null) ?? null, source: sourceOf('authTokenFile', sources) };
  const authToken = readToken(authTokenFile, errors);
  if (errors.length === 0) errors.push(...modeConflicts(values as unknown as Omit<Config, 'mode'>, sources));
  const inCluster = resolveInCluster(values as unknown as Config, sources, input.env, input.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  if (errors.length === 0) errors.push(...inCluster.errors);
  if (errors.length > 0) return { ok: false, errors, help };
  const parsed = values as unknown as Omit<Config, 'mode'>;
  const config: Config = Object.freeze({
    ...parsed,
    mode: modeOf(parsed),
    endpoints: Object.freeze([...parsed.endpoints]),
    listen: Object.freeze({ ...parsed.listen }),
    authRoutes: Object.freeze([...parsed.authRoutes]),
  });
  const warnings = [...unknown.warnings, ...certificateWarnings(tls, input.now)];
  if (listener.material) warnings.push(...certificateWarnings(listener.material, input.now, "the listener's certificate"));
  if (authToken === null && sources.authRoutes) {
    warnings.push(`${sources.authRoutes} is set but ${authTokenFile.source} is not, so every route is open`);
  }
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(config.listen.host);
  if (authToken !== null && !listener.material && !loopback) {
    warnings.push(`the bearer token of ${authTokenFile.source} travels in clear text: set ${sourceOf('tlsCertFile', sources)} for HTTPS`);
  }
  if (config.mode === 'static' && (tls.ca || tls.cert) && config.endpoints.every((e) => e.startsWith('http:'))) {
    warnings.push(`TLS files are set but every endpoint in ${sourceOf('endpoints', sources)} is http://, so they are not used`);
  }
  return {
    ok: true,
    config,
    sources,
    tlsFiles,
    tls,
    inCluster: inCluster.access,
    listenerTls: listener.material ? { files: listener.files, material: listener.material } : null,
    auth: authToken !== null && authTokenFile.path !== null ? { file: { path: authTokenFile.path, source: authTokenFile.source }, token: authToken } : null,
    warnings,
    help,
  };
}

// The listener's files are checked like etcd's; a client CA makes sense only with HTTPS.
function checkListenerFiles(
  values: Record<string, unknown>,
  sources: Partial<Record<SettingKey, string>>,
): { files: TlsFiles; material: TlsMaterial | null; errors: ConfigError[] } {
  const file = (key: SettingKey): FileSetting => ({ path: (values[key] as string | null) ?? null, source: sourceOf(key, sources) });
  const files: TlsFiles = { ca: file('tlsClientCaFile'), cert: file('tlsCertFile'), key: file('tlsKeyFile') };
  const { material, errors } = checkTlsFiles(files);
  if (files.ca.path !== null && files.cert.path === null) {
    errors.push(new ConfigError(files.ca.source, `needs ${files.cert.source} and ${files.key.source}: client certificates are asked for over HTTPS only`));
  }
  return { files, material: material.cert ? material : null, errors };
}

function readToken(file: FileSetting, errors: ConfigError[]): string | null {
  if (file.path === null) return null;
  try {
    return readTokenFile({ path: file.path, source: file.source });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    errors.push(error);
    return null;
  }
}

/** The name of a setting as the user gave it (flag or variable), or its variable when it was defaulted. */
export function sourceOf(key: SettingKey, sources: Partial<Record<SettingKey, string>>): string {
  return sources[key] ?? (SETTINGS.find((s) => s.key === key) as Setting).env;
}
