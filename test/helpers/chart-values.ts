import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR } from './chart-render.ts';

/** A values tree as parsed from YAML. */
export type Values = Record<string, unknown>;

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Merges user values over defaults as helm does: maps key by key, anything else replaced, null deletes. */
export function coalesce(defaults: Values, user: Values): Values {
  const out: Values = { ...defaults };
  for (const [key, value] of Object.entries(user)) {
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(out[key])) out[key] = coalesce(out[key], value);
    else out[key] = value;
  }
  return out;
}

/** A YAML values file of the chart, parsed (the path is relative to chart/). */
export function chartValues(relative: string): Values {
  const parsed: unknown = parse(readFileSync(join(CHART_DIR, relative), 'utf8'));
  if (!isMap(parsed)) throw new Error(`${relative} is not a map of values`);
  return parsed;
}
