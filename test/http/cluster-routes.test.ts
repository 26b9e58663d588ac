import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { CLUSTER_ROUTES, isClusterRoutePath } from '../../src/config/route-paths.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { openapi } from '../helpers/openapi.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { startFleet, type RunningFleet } from '../helpers/start-fleet.ts';
import { testTempDir } from '../helpers/temp-dir.ts';
import { round, three } from '../probe/observation-builders.ts';

// One list of cluster routes (config/route-paths.ts's CLUSTER_ROUTES) feeds both apps' registration
// (http/cluster-routes.ts), the fleet's 404 hint and the OpenAPI generator's fleet paths: held here.

let app: App | undefined;
let fleet: RunningFleet | undefined;

afterEach(async () => {
  await app?.server.close();
  await fleet?.close();
  app = undefined;
  fleet = undefined;
});

const templates = (routes: readonly string[], prefix: string) =>
  routes
    .filter((r) => r.startsWith(`GET ${prefix}`))
    .map((r) => r.slice(4 + prefix.length).replace(/:(\w+)/g, '{$1}') || '/')
    .sort();

describe('the cluster routes', () => {
  it('are registered at the root of the single-cluster service', async () => {
    const result = loadConfig({ env: {}, argv: [], now: new Date() });
    if (!result.ok) throw new Error('bad test config');
    app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('warn', new LogSink()), source: scriptedSource(round(three()).endpoints) });
    const served = templates(app.routes, '');
    for (const route of CLUSTER_ROUTES) expect(served, route).toContain(route);
  });

  it('are registered under /clusters/:cluster in fleet mode, all of them and nothing else', async () => {
    const file = join(testTempDir('etcd-probe-cluster-routes-'), 'clusters.yaml');
    writeFileSync(file, 'clusters:\n  - name: alpha\n    endpoints: [http://127.0.0.1:9]\n');
    fleet = await startFleet({ ETCD_PROBE_CLUSTERS_FILE: file, ETCD_PROBE_LOG_LEVEL: 'warn' });
    expect(templates(fleet.app.routes, '/clusters/:cluster')).toEqual([...CLUSTER_ROUTES].sort());
  });

  it("are the fleet paths of openapi.yaml, and the fleet's 404 points each of them to /clusters/{cluster}", () => {
    const fleetPaths = Object.keys(openapi.paths).filter((p) => p.startsWith('/clusters/{cluster}')).map((p) => p.slice('/clusters/{cluster}'.length));
    expect(fleetPaths.sort()).toEqual([...CLUSTER_ROUTES].sort());
    for (const route of CLUSTER_ROUTES.filter((r) => r !== '/')) expect(isClusterRoutePath(route.replace(/\{\w+\}/g, 'x')), route).toBe(true);
    for (const path of ['/', '/clusters', '/metrics', '/livez', '/healthzz', '/membersx']) expect(isClusterRoutePath(path), path).toBe(false);
  });
});
