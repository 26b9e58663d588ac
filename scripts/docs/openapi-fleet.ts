import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

// Generates openapi.yaml's fleet cluster paths (/clusters/{cluster}/healthz/etcd, ...) from the
// single-cluster paths they mirror, between the BEGIN and END markers: the same operations with the
// `cluster` path parameter, 404 CLUSTER_NOT_FOUND and 503 CLUSTER_NOT_PROBED added, and operation IDs of
// their own. test/docs/openapi-fleet.test.ts fails when the file and the generator differ.
// Run: npm run docs:openapi.

/** The single-cluster paths that fleet mode serves under /clusters/{cluster}. */
export const CLUSTER_PATHS = ['/healthz/etcd', '/members', '/members/{idOrName}', '/alarms', '/history', '/disruption', '/disruption/{member}', '/', '/status/fragment'];

const BEGIN = /^ {2}# BEGIN fleet cluster paths.*$/m;
const END = /^ {2}# END fleet cluster paths$/m;

const CLUSTER_NOT_FOUND = { $ref: '#/components/responses/ClusterNotFound' };
const CLUSTER_NOT_PROBED = { $ref: '#/components/responses/ClusterNotProbed' };
const ERROR_SCHEMA: Record<string, unknown> = { 'application/json': { $ref: '#/components/schemas/Error' }, 'text/plain': { $ref: '#/components/schemas/ErrorText' } };

type Json = Record<string, any>;

/** A response that may also be one of the fleet's errors: its bodies widened to the error envelope, its headers optional. */
function widened(response: Json, components: Json, code: string): Json {
  const resolved: Json = response.$ref ? components.responses[String(response.$ref).split('/').pop() as string] : response;
  const content: Json = {};
  for (const [type, media] of Object.entries<Json>(resolved.content ?? {})) {
    const error = ERROR_SCHEMA[type];
    // An answer that is already the error envelope stays as it is: anyOf [Error, Error] says nothing more.
    const already = error === undefined || JSON.stringify(media.schema) === JSON.stringify(error);
    content[type] = { schema: already ? media.schema : { anyOf: [media.schema, error] } };
  }
  return { description: `${String(resolved.description).trim()} In fleet mode also \`${code}\`.`, content };
}

function fleetOperation(path: string, operation: Json, components: Json): Json {
  const id = String(operation.operationId);
  const responses: Json = { ...operation.responses };
  responses['404'] = responses['404'] ? widened(responses['404'], components, 'CLUSTER_NOT_FOUND') : CLUSTER_NOT_FOUND;
  responses['503'] = responses['503'] ? widened(responses['503'], components, 'CLUSTER_NOT_PROBED') : CLUSTER_NOT_PROBED;
  const ordered = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return {
    operationId: `cluster${id.charAt(0).toUpperCase()}${id.slice(1)}`,
    summary: `Fleet mode — one cluster: ${String(operation.summary)}`,
    description: `As \`GET ${path}\`, for the cluster the path names (fleet mode only).`,
    security: operation.security,
    parameters: [{ $ref: '#/components/parameters/cluster' }, ...(operation.parameters ?? [])],
    responses: ordered,
  };
}

/** openapi.yaml's text with its fleet cluster paths generated anew from its single-cluster paths. */
export function withFleetPaths(text: string): string {
  const document = parse(text) as Json;
  const begin = BEGIN.exec(text);
  const end = END.exec(text);
  if (!begin || !end || end.index < begin.index) throw new Error('openapi.yaml: the BEGIN/END markers of the fleet cluster paths are missing');
  const paths: Json = {};
  for (const path of CLUSTER_PATHS) {
    const operation = document.paths?.[path]?.get;
    if (!operation) throw new Error(`openapi.yaml: no GET ${path} to mirror`);
    paths[`/clusters/{cluster}${path}`] = { get: fleetOperation(path, operation, document.components) };
  }
  const body = stringify(paths, { lineWidth: 0, flowCollectionPadding: true })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`)
    .join('\n');
  const head = text.slice(0, begin.index + begin[0].length);
  return `${head}\n${body}\n${text.slice(end.index)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = new URL('../../openapi.yaml', import.meta.url);
  writeFileSync(file, withFleetPaths(readFileSync(file, 'utf8')));
  process.stdout.write('openapi.yaml: fleet cluster paths regenerated\n');
}
