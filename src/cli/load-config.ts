import type { LoadedToken } from '../auth/bearer-token.ts';
import type { ConfigError } from '../config/config-error.ts';
import type { Config, InClusterAccess } from '../config/config.ts';
import { configWarnings } from '../config/config-warnings.ts';
import { deploymentOf, type Deployment } from '../config/deployment.ts';
import { inClusterRequest, SERVICE_ACCOUNT_DIR } from '../config/in-cluster.ts';
import { modeConflicts } from '../config/mode-rules.ts';
import { resolveSettings, configOf, type SettingsInput } from '../config/resolve-config.ts';
import type { Sources } from '../config/setting.ts';
import { certificateWarnings, type LoadedTls, type TlsFiles, type TlsMaterial } from '../tls/tls-files.ts';
import { checkServiceAccount, readSettingFiles } from './read-setting-files.ts';

/** What the process was started with: its environment and its settings flags. */
export interface ConfigInput extends SettingsInput {
  /** The time against which certificate validity is checked. */
  readonly now: Date;
  /** Where the pod's service account is mounted; SERVICE_ACCOUNT_DIR by default (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
}

/** The outcome of loading: a frozen Config, the material its files held, and warnings; or every problem found. */
export type ConfigResult =
  | {
      readonly ok: true;
      readonly config: Config;
      /** What the process serves: one cluster, or a fleet and where its clusters come from. */
      readonly deployment: Deployment;
      /** The variable or flag each non-default value came from, e.g. `{certFile: '--cert'}`. */
      readonly sources: Sources;
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

/**
 * Everything a command starts from, in three steps: the settings decoded (pure), the files they name
 * read, then the rules between settings (only when each setting is sound on its own). Every problem is
 * reported at once.
 */
export function loadConfig(input: ConfigInput): ConfigResult {
  const resolution = resolveSettings(input);
  const { settings, sources, help } = resolution;
  const files = readSettingFiles(settings, sources);
  const errors = [...resolution.errors, ...files.errors];
  if (errors.length === 0) errors.push(...modeConflicts(settings, sources));
  const inCluster = checkServiceAccount(inClusterRequest(settings, sources, input.env, input.serviceAccountDir ?? SERVICE_ACCOUNT_DIR));
  if (errors.length === 0) errors.push(...inCluster.errors);
  if (errors.length > 0) return { ok: false, errors, help };
  const config = configOf(settings);
  const { material: listenerMaterial } = files.listener;
  const warnings = [
    ...resolution.warnings,
    ...certificateWarnings(files.tls, input.now),
    ...(listenerMaterial ? certificateWarnings(listenerMaterial, input.now, "the listener's certificate") : []),
    ...configWarnings(config, sources),
  ];
  return {
    ok: true,
    config,
    deployment: deploymentOf(settings),
    sources,
    tlsFiles: files.tlsFiles,
    tls: files.tls,
    inCluster: inCluster.access,
    listenerTls: listenerMaterial ? { files: files.listener.files, material: listenerMaterial } : null,
    auth: files.auth,
    warnings,
    help,
  };
}
