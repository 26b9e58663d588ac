import { ApiError, sanitised } from './api-error.ts';

/** How a query parameter is read: a flag, one of a fixed set of words, or text the route validates itself. */
export type ParameterKind = 'flag' | 'text' | readonly string[];

/** The query parameters a route accepts, by name. */
export type QuerySpec = Readonly<Record<string, ParameterKind>>;

/** The values of a query read by a spec: flags as booleans, words and text as strings; absent when not given. */
export type QueryValues<S extends QuerySpec> = {
  -readonly [K in keyof S]?: S[K] extends 'flag' ? boolean : S[K] extends readonly (infer W)[] ? W : string;
};

/** A route's query rules: its parameters, and the route and what it accepts, as error messages name them. */
export interface QueryRules<S extends QuerySpec> {
  readonly parameters: S;
  readonly accepts: string;
}

/** Rules for the route `route` (its template, e.g. `/members/{idOrName}`) accepting `parameters`. */
export function queryRules<S extends QuerySpec>(route: string, parameters: S): QueryRules<S> {
  const names = Object.keys(parameters);
  return { parameters, accepts: names.length === 0 ? `${route} takes no query parameters` : `${route} accepts ${names.join(', ')}` };
}

const NONE = Object.freeze({});
const ON = new Set(['', 'true', '1']);
const OFF = new Set(['false', '0']);

function read(name: string, kind: ParameterKind, value: string): boolean | string {
  if (kind === 'text') return value;
  if (kind === 'flag') {
    if (ON.has(value)) return true;
    if (OFF.has(value)) return false;
    throw new ApiError('INVALID_PARAMETER', `${name}: must be true, false, 1 or 0, or no value (?${name})`);
  }
  if (kind.includes(value)) return value;
  throw new ApiError('INVALID_PARAMETER', `${name}: must be one of ${kind.join(', ')}`);
}

/**
 * Reads a parsed query string strictly: an unknown parameter, a repeated one, or a value outside its
 * kind is a 400 (INVALID_PARAMETER) that names the parameter, never its value, so that a typo
 * (`?polcy=strict`) fails loudly instead of quietly getting the default. Known names come from the
 * spec; an unknown one is shown sanitised.
 */
export function parseQuery<S extends QuerySpec>(rules: QueryRules<S>, query: unknown): QueryValues<S> {
  const given = query as Record<string, string | string[]>;
  let values: Record<string, boolean | string> | null = null;
  for (const name in given) {
    values ??= {};
    const kind = Object.hasOwn(rules.parameters, name) ? rules.parameters[name] : undefined;
    if (kind === undefined) throw new ApiError('INVALID_PARAMETER', `unknown query parameter '${sanitised(name)}': ${rules.accepts}`);
    const value = given[name];
    if (typeof value !== 'string') throw new ApiError('INVALID_PARAMETER', `${name}: given ${value?.length ?? 0} times; give it at most once`);
    values[name] = read(name, kind, value);
  }
  // Most requests have no query: they share one empty result instead of allocating their own.
  return (values ?? NONE) as QueryValues<S>;
}
