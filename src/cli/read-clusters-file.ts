import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { tokenize } from '../config/argv.ts';
import { clusterConfigOf } from '../config/cluster-config.ts';
import { ConfigError } from '../config/config-error.ts';
import { REMOVED_SETTINGS, removedProblem } from '../config/removed-settings.ts';
import type { SettingKey } from '../config/setting.ts';
import { JUDGE_KEYS, REACH_KEYS, SETTING_TABLE } from '../config/settings.ts';
import type { ClusterEntry } from '../fleet/cluster-entry.ts';
import { loadConfig, type ConfigInput } from './load-config.ts';

/** Clusters files larger than this are refused unread. */
export const MAX_CLUSTERS_FILE_BYTES = 4 * 1024 * 1024;

/** Settings naming files, resolved against the clusters file's folder when relative. */
const PATH_KEYS: readonly SettingKey[] = ['caFile', 'certFile', 'keyFile', 'kubeconfig', 'managementKubeconfig'];

/** The key of a setting in a clusters file: its variable without ETCD_PROBE_, in camelCase (ETCD_PROBE_TLS_SECRET: tlsSecret). */
export function fileKeyOf(key: SettingKey): string {
  const words = SETTING_TABLE[key].env.slice('ETCD_PROBE_'.length).toLowerCase().split('_');
  return words.map((w, i) => (i === 0 ? w : `${w.charAt(0).toUpperCase()}${w.slice(1)}`)).join('');
}

const ENTRY_KEYS = new Map<string, SettingKey>([...REACH_KEYS, ...JUDGE_KEYS].map((k) => [fileKeyOf(k), k]));
const NAME = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

/** The clusters of a clusters file, or every problem found in it. */
export type ClustersFileResult = { readonly ok: true; readonly entries: readonly ClusterEntry[] } | { readonly ok: false; readonly errors: readonly ConfigError[] };

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function valueText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  return null;
}

function parse(path: string, where: string): { data: unknown } | { error: ConfigError } {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_CLUSTERS_FILE_BYTES) return { error: new ConfigError(where, `${path} is larger than ${MAX_CLUSTERS_FILE_BYTES} bytes, not read`) };
    text = bytes.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: new ConfigError(where, `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}`) };
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, lineCounter: lines, uniqueKeys: true });
  const [problem] = document.errors;
  if (problem) {
    const { line, col } = lines.linePos(problem.pos[0]);
    return { error: new ConfigError(where, `${path} is not valid YAML at line ${line}, column ${col} (${problem.code.toLowerCase().replaceAll('_', ' ')})`) };
  }
  try {
    return { data: document.toJS({ maxAliasCount: 100 }) };
  } catch {
    return { error: new ConfigError(where, `${path} is not valid YAML (aliases)`) };
  }
}

/**
 * The process's own settings that every cluster inherits: its overrides, from the environment and the
 * flags (a flag wins over its variable, as for the process; a cluster's own value wins over both).
 */
function inherited(input: ConfigInput): Record<string, string | undefined> {
  const inheritedEnv = new Set(JUDGE_KEYS.map((k) => SETTING_TABLE[k].env));
  const env = Object.fromEntries(Object.entries(input.env).filter(([name]) => !name.startsWith('ETCD_PROBE_') || inheritedEnv.has(name)));
  for (const token of tokenize(input.argv)) {
    const key = JUDGE_KEYS.find((k) => !token.short && SETTING_TABLE[k].flag === token.name);
    if (key && token.value !== null) env[SETTING_TABLE[key].env] = token.value;
  }
  return env;
}

/**
 * Reads ETCD_PROBE_CLUSTERS_FILE: `clusters:`, a list of entries, each a `name` and the settings of one
 * mode under the names the settings have without their prefix, in camelCase, plus overrides of how the
 * cluster is judged. Each entry is loaded as the process's own settings are (its files read, its rules
 * checked), over the overrides the process itself was given. Every problem is reported at once, naming
 * the cluster and the key.
 */
export function readClustersFile(path: string, input: ConfigInput, source = 'ETCD_PROBE_CLUSTERS_FILE'): ClustersFileResult {
  const parsed = parse(path, source);
  if ('error' in parsed) return { ok: false, errors: [parsed.error] };
  const top = record(parsed.data);
  const list = top?.clusters;
  if (!top || !Array.isArray(list) || list.length === 0) return { ok: false, errors: [new ConfigError(source, `${path} must hold "clusters:", a list of at least one cluster`)] };
  const extra = Object.keys(top).filter((k) => k !== 'clusters');
  const errors: ConfigError[] = extra.length > 0 ? [new ConfigError(source, `${path}: unknown top-level key(s) ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}; only "clusters"`)] : [];
  const base = inherited(input);
  const folder = dirname(resolve(path));
  const seen = new Set<string>();
  const entries: ClusterEntry[] = [];
  list.forEach((item, index) => {
    const entry = record(item);
    const at = (name: string | null, key?: string) => `${source}: clusters[${index}]${name ? ` (${name})` : ''}${key ? `: ${key}` : ''}`;
    if (!entry) {
      errors.push(new ConfigError(at(null), 'must be a map with a name and settings'));
      return;
    }
    const name = entry.name;
    if (typeof name !== 'string' || !NAME.test(name)) {
      errors.push(new ConfigError(at(null, 'name'), 'must be a name of lowercase letters, digits, "-" and "." (at most 63)'));
      return;
    }
    if (seen.has(name)) errors.push(new ConfigError(at(name, 'name'), 'is taken by an earlier cluster'));
    seen.add(name);
    const env: Record<string, string | undefined> = { ...base };
    const fromEntry = new Map<string, string>();
    let usable = true;
    for (const [key, value] of Object.entries(entry)) {
      if (key === 'name') continue;
      const setting = ENTRY_KEYS.get(key);
      const removed = REMOVED_SETTINGS.find((r) => r.fileKey === key);
      if (removed) {
        errors.push(new ConfigError(at(name, key), removedProblem(removed)));
        usable = false;
        continue;
      }
      if (!setting) {
        errors.push(new ConfigError(at(name, JSON.stringify(key.slice(0, 40))), `is not a per-cluster setting; these are: ${[...ENTRY_KEYS.keys()].join(', ')}`));
        usable = false;
        continue;
      }
      let text = valueText(value);
      if (text === null) {
        errors.push(new ConfigError(at(name, key), 'must be a string, a number, a boolean or a list of strings'));
        usable = false;
        continue;
      }
      if (PATH_KEYS.includes(setting) && text !== 'in-cluster' && text.trim() !== '' && !isAbsolute(text.trim())) text = resolve(folder, text.trim());
      env[SETTING_TABLE[setting].env] = text;
      fromEntry.set(SETTING_TABLE[setting].env, key);
    }
    if (!['endpoints', 'kubeconfig', 'capiCluster'].some((k) => k in entry)) {
      errors.push(new ConfigError(at(name), 'needs one of endpoints, kubeconfig or capiCluster'));
      usable = false;
    }
    const capi = env.ETCD_PROBE_CAPI_CLUSTER?.trim();
    if (capi === '*' || capi?.endsWith('/*')) {
      errors.push(new ConfigError(at(name, 'capiCluster'), 'names one Cluster (namespace/name) in a clusters file; for a fleet of Clusters set ETCD_PROBE_CAPI_CLUSTER=* instead'));
      usable = false;
    }
    if (!usable) return;
    const loaded = loadConfig({ ...input, env, argv: [] });
    if (!loaded.ok) {
      for (const e of loaded.errors) {
        const key = fromEntry.get(e.source);
        errors.push(new ConfigError(key ? at(name, key) : `${at(name)}: ${e.source}`, e.problem));
      }
      return;
    }
    entries.push({ name, config: clusterConfigOf(loaded.config), tls: loaded.tls, tlsFiles: loaded.tlsFiles, inCluster: loaded.inCluster, waiting: null, revision: 'file' });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, entries };
}
