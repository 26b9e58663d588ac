import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** The project's openapi.yaml, parsed. */
export const openapi = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openapi, 'openapi');

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolve(pointer: string): [string, any] {
  let node: any = openapi;
  let path = pointer;
  for (const segment of pointer.split('/').slice(1)) node = node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  // Operations and responses may be $refs (components/responses); schemas are left to ajv.
  while (node && typeof node.$ref === 'string') {
    path = node.$ref.slice(1);
    node = resolve(path)[1];
  }
  return [path, node];
}

/** A response as a test saw it; with `headers`, the documented headers are checked too. */
export interface SeenResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
  readonly headers?: Record<string, unknown> | Headers;
}

function validate(pointer: string, value: unknown): string[] {
  const check = ajv.getSchema(`openapi#${pointer}`);
  if (!check) return [`no schema at ${pointer}`];
  if (check(value)) return [];
  return (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/**
 * Checks a response against a documented response object (its JSON pointer): the content type must be
 * documented (or none, for a body-less one), the body must validate against its schema (JSON bodies, and
 * text bodies whose schema says more than "a string"), and with headers given, every documented header
 * marked `required` must be there and every documented one that is there must match its schema.
 */
function checkAgainst(responsePath: string, documented: any, response: SeenResponse): string[] {
  const errors: string[] = [];
  if (response.headers) {
    const seen = response.headers;
    for (const name of Object.keys(documented.headers ?? {})) {
      const [headerPath, resolved] = resolve(`${responsePath}/headers/${escape(name)}`);
      const value = seen instanceof Headers ? (seen.get(name) ?? undefined) : seen[name.toLowerCase()];
      if (value === undefined) {
        if (resolved?.required) errors.push(`header ${name} is missing`);
        continue;
      }
      if (resolved?.schema) errors.push(...validate(`${headerPath}/schema`, String(value)).map((e) => `header ${name}: ${e}`));
    }
  }
  const mediaType = response.contentType.split(';')[0]?.trim() ?? '';
  if (!documented.content) return mediaType === '' && (response.body === '' || response.body === undefined) ? errors : [...errors, `${responsePath} documents no body`];
  if (!documented.content[mediaType]) return [...errors, `${responsePath} does not document ${mediaType || 'a body without a content type'}`];
  const schemaPath = `${responsePath}/content/${escape(mediaType)}/schema`;
  if (mediaType === 'application/json' || typeof response.body === 'string') errors.push(...validate(schemaPath, response.body));
  return errors;
}

/**
 * Checks a real response against the documented one for (method, path template): the status must be
 * documented for the operation, and the response must match it (see checkAgainst).
 */
export function checkResponse(method: string, template: string, response: SeenResponse): string[] {
  const [operationPath, operation] = resolve(`/paths/${escape(template)}/${method.toLowerCase()}`);
  if (!operation) return [`${method} ${template} is not documented`];
  const [responsePath, documented] = resolve(`${operationPath}/responses/${response.status}`);
  if (!documented) return [`${method} ${template} does not document status ${response.status}`];
  return checkAgainst(responsePath, documented, response);
}

/**
 * Checks a response that any request can get, whatever its route (404 for no route, 405, 408, 414,
 * 431), against the shared response `components/responses/<name>`.
 */
export function checkSharedResponse(name: string, response: SeenResponse): string[] {
  const [responsePath, documented] = resolve(`/components/responses/${name}`);
  if (!documented) return [`components/responses/${name} is not documented`];
  return checkAgainst(responsePath, documented, response);
}

/** The documented paths a single-cluster service serves (fleet mode's /clusters... are not among them). */
export const SINGLE_CLUSTER_PATHS: readonly string[] = Object.keys(openapi.paths).filter((p) => !p.startsWith('/clusters'));

/** The documented paths a fleet-mode service serves: /clusters and every cluster's routes, and the service's own. */
export const FLEET_PATHS: readonly string[] = Object.keys(openapi.paths).filter((p) => p.startsWith('/clusters') || ['/', '/metrics', '/livez', '/readyz', '/openapi.yaml'].includes(p));
