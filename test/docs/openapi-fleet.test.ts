import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLUSTER_PATHS, withFleetPaths } from '../../scripts/docs/openapi-fleet.ts';
import { openapi } from '../helpers/openapi.ts';

describe("openapi.yaml's fleet cluster paths", () => {
  const text = readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8');

  it('are what npm run docs:openapi generates from the single-cluster paths', () => {
    expect(withFleetPaths(text)).toBe(text);
  });

  it('mirror every single-cluster route with the cluster parameter and the fleet errors', () => {
    for (const path of CLUSTER_PATHS) {
      const operation = openapi.paths[`/clusters/{cluster}${path}`]?.get;
      expect(operation, path).toBeDefined();
      expect(operation.parameters[0]).toEqual({ $ref: '#/components/parameters/cluster' });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['404', '503']));
    }
    const ids = Object.values<any>(openapi.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
