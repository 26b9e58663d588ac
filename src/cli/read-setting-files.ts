import { accessSync, constants } from 'node:fs';
import { readTokenFile, type LoadedToken } from '../auth/bearer-token.ts';
import { ConfigError } from '../config/config-error.ts';
import type { InClusterAccess, KubeconfigRef } from '../config/config.ts';
import type { InClusterRequest } from '../config/in-cluster.ts';
import { sourceOf } from '../config/resolve-config.ts';
import type { SettingKey, Settings, Sources } from '../config/setting.ts';
import { checkTlsFiles, type FileSetting, type TlsFiles, type TlsMaterial } from '../tls/tls-files.ts';

/** What the settings' files held at start, with every problem found in them. */
export interface SettingFiles {
  /** etcd client TLS files with the setting that names each, for re-reading them later. */
  readonly tlsFiles: TlsFiles;
  /** etcd client TLS material as read now. */
  readonly tls: TlsMaterial;
  /** The listener's files (ca: the client CA), and its material as read now; null material: plain HTTP. */
  readonly listener: { readonly files: TlsFiles; readonly material: TlsMaterial | null };
  /** The bearer token file and token as read now; null: no route is guarded. */
  readonly auth: LoadedToken | null;
  readonly errors: readonly ConfigError[];
}

const ERRNO_TEXT: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied' };

function readable(path: string): string | null {
  try {
    accessSync(path, constants.R_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return ERRNO_TEXT[code] ?? code;
  }
}

// A kubeconfig is loaded when the member source is built; here it is only found readable, so that a
// typo in its path fails at start with the other problems.
function checkKubeconfig(ref: KubeconfigRef | null, key: SettingKey, sources: Sources): ConfigError[] {
  if (ref?.kind !== 'file') return [];
  const problem = readable(ref.path);
  return problem === null ? [] : [new ConfigError(sourceOf(key, sources), `cannot read ${ref.path}: ${problem}`)];
}

function readToken(file: FileSetting, errors: ConfigError[]): LoadedToken | null {
  if (file.path === null) return null;
  const named = { path: file.path, source: file.source };
  try {
    return { file: named, token: readTokenFile(named) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    errors.push(error);
    return null;
  }
}

/**
 * Reads and checks every file the settings name: kubeconfigs (readable), etcd's and the listener's TLS
 * files, the bearer token file. Each is read even when others are bad, so that one run reports every
 * problem.
 */
export function readSettingFiles(settings: Settings, sources: Sources): SettingFiles {
  const file = (key: SettingKey, path: string | null): FileSetting => ({ path, source: sourceOf(key, sources) });
  const errors: ConfigError[] = [...checkKubeconfig(settings.kubeconfig, 'kubeconfig', sources), ...checkKubeconfig(settings.managementKubeconfig, 'managementKubeconfig', sources)];
  const tlsFiles: TlsFiles = { ca: file('caFile', settings.caFile), cert: file('certFile', settings.certFile), key: file('keyFile', settings.keyFile) };
  const etcd = checkTlsFiles(tlsFiles);
  errors.push(...etcd.errors);
  const listenerFiles: TlsFiles = { ca: file('tlsClientCaFile', settings.tlsClientCaFile), cert: file('tlsCertFile', settings.tlsCertFile), key: file('tlsKeyFile', settings.tlsKeyFile) };
  const listener = checkTlsFiles(listenerFiles);
  errors.push(...listener.errors);
  // A client CA makes sense only with HTTPS.
  if (listenerFiles.ca.path !== null && listenerFiles.cert.path === null) {
    errors.push(new ConfigError(listenerFiles.ca.source, `needs ${listenerFiles.cert.source} and ${listenerFiles.key.source}: client certificates are asked for over HTTPS only`));
  }
  const auth = readToken(file('authTokenFile', settings.authTokenFile), errors);
  return { tlsFiles, tls: etcd.material, listener: { files: listenerFiles, material: listener.material.cert ? listener.material : null }, auth, errors };
}

/** The in-cluster access a setting asks for, once its service account files are found readable. */
export function checkServiceAccount(request: InClusterRequest | null): { access: InClusterAccess | null; errors: readonly ConfigError[] } {
  if (request === null) return { access: null, errors: [] };
  if (request.access === null) return { access: null, errors: request.errors };
  const errors = [request.access.caFile, request.access.tokenFile]
    .filter((path) => readable(path) !== null)
    .map((path) => new ConfigError(request.setting, `in-cluster credentials need ${path}: is the service account token mounted (automountServiceAccountToken)?`));
  return { access: errors.length === 0 ? request.access : null, errors };
}
