import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { represent } from '../representation.ts';
import { sendRepresentation } from '../send-representation.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

/** The API description, next to package.json (two levels up from src/http/routes and dist/http/routes). */
export const OPENAPI_PATH = new URL('../../../openapi.yaml', import.meta.url);

const QUERY = queryRules('/openapi.yaml', {});

/** GET /openapi.yaml: the OpenAPI 3.1 description of this API, as shipped; revalidated by its ETag. */
export function openapiRoute(app: FastifyInstance): void {
  const document = represent(200, 'application/yaml; charset=utf-8', readFileSync(OPENAPI_PATH, 'utf8'));
  app.get('/openapi.yaml', async (request, reply) => {
    parseQuery(QUERY, request.query);
    reply.header('cache-control', 'no-cache');
    return sendRepresentation(request, reply, document);
  });
}
