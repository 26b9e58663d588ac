import { loadConfig, type ConfigInput, type ConfigResult } from '../../src/cli/load-config.ts';

/** A successfully resolved configuration. */
export type Resolved = Extract<ConfigResult, { ok: true }>;

/** loadConfig with defaults for the parts a test does not care about. */
export function resolve(env: ConfigInput['env'] = {}, argv: readonly string[] = [], now = new Date()): ConfigResult {
  return loadConfig({ env, argv, now });
}

/** The config of a result that must have succeeded. */
export function ok(result: ConfigResult): Resolved {
  if (!result.ok) throw new Error(`expected a config, got errors: ${result.errors.map((e) => e.message).join('; ')}`);
  return result;
}

/** The messages of a result that must have failed. */
export function errorsOf(result: ConfigResult): string[] {
  if (result.ok) throw new Error('expected errors, got a config');
  return result.errors.map((e) => e.message);
}
