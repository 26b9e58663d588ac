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

/** A response as a test saw it. */
export interface SeenResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

/**
 * Checks a real response against the documented one for (method, path template): the status must be
 * documented, the content type too, and a JSON body must validate against its schema.
 */
export function checkResponse(method: string, template: string, response: SeenResponse): string[] {
  const [operationPath, operation] = resolve(`/paths/${escape(template)}/${method.toLowerCase()}`);
  if (!operation) return [`${method} ${template} is not documented`];
  const [responsePath, documented] = resolve(`${operationPath}/responses/${response.status}`);
  if (!documented) return [`${method} ${template} does not document status ${response.status}`];
  const mediaType = response.contentType.split(';')[0]?.trim() ?? '';
  if (!documented.content?.[mediaType]) return [`${method} ${template} ${response.status} does not document ${mediaType}`];
  if (mediaType !== 'application/json') return [];
  const validate = ajv.getSchema(`openapi#${responsePath}/content/${escape(mediaType)}/schema`);
  if (!validate) return [`no schema at ${responsePath}`];
  if (validate(response.body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}
