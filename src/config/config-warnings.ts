import type { Config } from './config.ts';
import { sourceOf } from './resolve-config.ts';
import type { Sources } from './setting.ts';

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];

/** Settings that work but probably not as meant: each a sentence naming the settings involved. */
export function configWarnings(config: Config, sources: Sources): string[] {
  const warnings: string[] = [];
  if (config.authTokenFile === null && sources.authRoutes) {
    warnings.push(`${sources.authRoutes} is set but ${sourceOf('authTokenFile', sources)} is not, so every route is open`);
  }
  if (config.authTokenFile !== null && config.tlsCertFile === null && !LOOPBACK.includes(config.listen.host)) {
    warnings.push(`the bearer token of ${sourceOf('authTokenFile', sources)} travels in clear text: set ${sourceOf('tlsCertFile', sources)} for HTTPS`);
  }
  if (config.mode === 'static' && (config.caFile !== null || config.certFile !== null) && config.endpoints.every((e) => e.startsWith('http:'))) {
    warnings.push(`TLS files are set but every endpoint in ${sourceOf('endpoints', sources)} is http://, so they are not used`);
  }
  return warnings;
}
