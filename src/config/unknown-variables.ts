import { ConfigError } from './config-error.ts';
import { REMOVED_SETTINGS, removedProblem } from './removed-settings.ts';
import { SETTINGS } from './settings.ts';
import { nearest } from './near-miss.ts';

const PREFIX = 'ETCD_PROBE_';

// Kubernetes injects <SERVICE>_SERVICE_HOST, <SERVICE>_PORT_8080_TCP... for every Service in the
// namespace; a Service named etcd-probe produces ETCD_PROBE_* variables that are not settings.
const SERVICE_LINK = /^ETCD_PROBE(_[A-Z0-9_]+)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?)$/;


/**
 * ETCD_PROBE_* variables that are no setting: a removed setting is an error naming what replaced it, a
 * near miss of a real name is an error (a typo would otherwise silently fall back to a default); anything
 * else is a warning.
 */
export function unknownVariables(env: Readonly<Record<string, string | undefined>>): {
  errors: ConfigError[];
  warnings: string[];
} {
  const known = new Set(SETTINGS.map((s) => s.env));
  const errors: ConfigError[] = [];
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith(PREFIX) || known.has(name)) continue;
    if (name === 'ETCD_PROBE_PORT' && !/^(tcp|udp|sctp):\/\//.test(env[name] ?? '')) {
      // Kubernetes writes tcp://host:port here; anything else is a user's guess at a setting.
      warnings.push(`${name}: not a setting, ignored (the listen address is ETCD_PROBE_LISTEN)`);
      continue;
    }
    const removed = REMOVED_SETTINGS.find((r) => r.variable === name);
    if (removed) {
      errors.push(new ConfigError(name, removedProblem(removed)));
      continue;
    }
    if (SERVICE_LINK.test(name)) continue;
    const near = nearest(name, [...known]);
    if (near) {
      errors.push(new ConfigError(name, `unknown setting (did you mean ${near}?)`));
    } else {
      warnings.push(`${name}: unknown setting, ignored`);
    }
  }
  return { errors, warnings };
}
