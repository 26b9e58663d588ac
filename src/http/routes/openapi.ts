import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

/** The API description, next to package.json (two levels up from src/http/routes and dist/http/routes). */
export const OPENAPI_PATH = new URL('../../../openapi.yaml', import.meta.url);

/** GET /openapi.yaml: the OpenAPI 3.1 description of this API, as shipped. */
export function openapiRoute(app: FastifyInstance): void {
  const document = readFileSync(OPENAPI_PATH, 'utf8');
  app.get('/openapi.yaml', async (_request, reply) => {
    reply.type('application/yaml; charset=utf-8');
    return document;
  });
}
