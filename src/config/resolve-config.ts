import { tokenize } from './argv.ts';
import { ConfigError, ValueProblem } from './config-error.ts';
import { HISTORY_MAX_BYTES, isCapiFleet, type Config } from './config.ts';
import { modeOf } from './mode-rules.ts';
import { nearest } from './near-miss.ts';
import { REMOVED_SETTINGS, removedProblem } from './removed-settings.ts';
import type { Setting, SettingKey, Settings, Sources } from './setting.ts';
import { SETTING_TABLE, SETTINGS } from './settings.ts';
import { unknownVariables } from './unknown-variables.ts';

/** What the settings are read from: the process's environment and the settings flags of its command line. */
export interface SettingsInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly argv: readonly string[];
}

/**
 * The settings as decoded, with every problem found. A setting whose text is bad holds its default, so
 * that the checks after this one (the files, the mode's rules) can still run and report theirs too.
 */
export interface Resolution {
  readonly settings: Settings;
  readonly sources: Sources;
  readonly errors: readonly ConfigError[];
  /** About unknown ETCD_PROBE_ variables. */
  readonly warnings: readonly string[];
  readonly help: boolean;
}

interface RawValue {
  readonly text: string;
  readonly source: string;
}

function readFlags(argv: readonly string[]): { values: Map<SettingKey, RawValue>; help: boolean; errors: ConfigError[] } {
  const values = new Map<SettingKey, RawValue>();
  const errors: ConfigError[] = [];
  let help = false;
  for (const token of tokenize(argv)) {
    if (token.name === null) {
      errors.push(new ConfigError(token.raw, 'unexpected argument; settings are flags like --endpoints=...'));
      continue;
    }
    if ((token.short && token.name === 'h') || (!token.short && token.name === 'help')) {
      help = true;
      continue;
    }
    const setting = token.short ? undefined : SETTINGS.find((s) => s.flag === token.name);
    const removed = token.short ? undefined : REMOVED_SETTINGS.find((r) => r.flag === token.name);
    if (removed) errors.push(new ConfigError(token.raw, removedProblem(removed)));
    else if (!setting) {
      const near = token.short ? null : nearest(token.name, SETTINGS.map((s) => s.flag));
      errors.push(new ConfigError(token.raw, near ? `unknown flag (did you mean --${near}?)` : 'unknown flag (etcd-probe --help lists them)'));
    }
    else if (token.value === null) {
      errors.push(new ConfigError(token.raw, `needs a value, e.g. ${token.raw}=${setting.fallback ?? '...'}`));
    } else values.set(setting.key, { text: token.value, source: token.raw });
  }
  return { values, help, errors };
}

function pick(setting: Setting, flags: ReadonlyMap<SettingKey, RawValue>, env: SettingsInput['env']): RawValue | null {
  const fromFlag = flags.get(setting.key);
  if (fromFlag) return fromFlag;
  const fromEnv = env[setting.env];
  // An empty variable counts as unset: charts and compose files often render empty strings.
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { text: fromEnv, source: setting.env };
  return null;
}

function defaultOf<K extends SettingKey>(setting: Setting<K>): Settings[K] {
  return setting.fallback === null ? setting.absent : setting.parse(setting.fallback);
}

// Listed key by key, so that the compiler checks that every setting is decoded into its own type.
function decodeEach(decode: <K extends SettingKey>(key: K) => Settings[K]): Settings {
  return {
    endpoints: decode('endpoints'),
    caFile: decode('caFile'),
    certFile: decode('certFile'),
    keyFile: decode('keyFile'),
    listen: decode('listen'),
    cacheTtlMs: decode('cacheTtlMs'),
    timeoutMs: decode('timeoutMs'),
    policy: decode('policy'),
    discover: decode('discover'),
    quotaBytes: decode('quotaBytes'),
    maxRaftGap: decode('maxRaftGap'),
    electionGraceMs: decode('electionGraceMs'),
    historyWindowMs: decode('historyWindowMs'),
    quotaEtaThresholdMs: decode('quotaEtaThresholdMs'),
    quotaEtaWindowMs: decode('quotaEtaWindowMs'),
    dataCheckIntervalMs: decode('dataCheckIntervalMs'),
    dataCheckTimeoutMs: decode('dataCheckTimeoutMs'),
    logLevel: decode('logLevel'),
    kubeconfig: decode('kubeconfig'),
    nodeSelector: decode('nodeSelector'),
    connect: decode('connect'),
    tlsSecret: decode('tlsSecret'),
    capiCluster: decode('capiCluster'),
    capiSelector: decode('capiSelector'),
    denyCidrs: decode('denyCidrs'),
    managementKubeconfig: decode('managementKubeconfig'),
    nodeGraceMs: decode('nodeGraceMs'),
    maxMembers: decode('maxMembers'),
    clustersFile: decode('clustersFile'),
    shard: decode('shard'),
    fleetRefreshMs: decode('fleetRefreshMs'),
    maxRoundsInFlight: decode('maxRoundsInFlight'),
    holdConnections: decode('holdConnections'),
    fleetMaxClusters: decode('fleetMaxClusters'),
    fleetMaxClustersPerNamespace: decode('fleetMaxClustersPerNamespace'),
    fleetHistoryMaxBytes: decode('fleetHistoryMaxBytes'),
    authTokenFile: decode('authTokenFile'),
    authRoutes: decode('authRoutes'),
    tlsCertFile: decode('tlsCertFile'),
    tlsKeyFile: decode('tlsKeyFile'),
    tlsClientCaFile: decode('tlsClientCaFile'),
    maxConnections: decode('maxConnections'),
    maxConnectionsPerClient: decode('maxConnectionsPerClient'),
    shutdownDelayMs: decode('shutdownDelayMs'),
  };
}

/**
 * Decodes the environment and the settings flags strictly and applies defaults, reporting every
 * problem at once. Pure: no file is read here (the start-up's file step reads them).
 */
export function resolveSettings(input: SettingsInput): Resolution {
  const { values: flags, help, errors } = readFlags(input.argv);
  const unknown = unknownVariables(input.env);
  errors.push(...unknown.errors);
  const sources: Partial<Record<SettingKey, string>> = {};
  const problems = new Map<SettingKey, ConfigError>();
  const settings = decodeEach(<K extends SettingKey>(key: K): Settings[K] => {
    const setting: Setting<K> = SETTING_TABLE[key];
    const raw = pick(setting, flags, input.env);
    if (raw === null) return defaultOf(setting);
    try {
      const value = setting.parse(raw.text);
      sources[key] = raw.source;
      return value;
    } catch (error) {
      if (!(error instanceof ValueProblem)) throw error;
      problems.set(key, new ConfigError(raw.source, error.message));
      return defaultOf(setting);
    }
  });
  // In the order of the settings table, as the help text lists them.
  for (const s of SETTINGS) {
    const problem = problems.get(s.key);
    if (problem) errors.push(problem);
  }
  return { settings, sources, errors, warnings: unknown.warnings, help };
}

/**
 * The frozen Config of settings that resolved without a problem: the mode and the history cap derived,
 * the lists copied, and what selects the Deployment (deploymentOf) left out.
 */
export function configOf(settings: Settings): Config {
  const { clustersFile: _file, capiSelector: _selector, capiCluster: target, ...rest } = settings;
  const capiCluster = isCapiFleet(target) ? null : target;
  return Object.freeze({
    ...rest,
    capiCluster,
    mode: modeOf({ capiCluster, kubeconfig: settings.kubeconfig }),
    historyMaxBytes: HISTORY_MAX_BYTES,
    endpoints: Object.freeze([...settings.endpoints]),
    listen: Object.freeze({ ...settings.listen }),
    authRoutes: Object.freeze([...settings.authRoutes]),
    shard: Object.freeze({ ...settings.shard }),
  });
}

/** The name of a setting as the user gave it (flag or variable), or its variable when it was defaulted. */
export function sourceOf(key: SettingKey, sources: Sources): string {
  return sources[key] ?? SETTING_TABLE[key].env;
}
