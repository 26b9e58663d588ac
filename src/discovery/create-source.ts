import type { DiscoveredSource } from './discovered-source.ts';
import type { SourceInputs } from './source-inputs.ts';
import { StaticSource } from './static-source.ts';

/**
 * The member source the config selects. The Kubernetes modes' code (and @kubernetes/client-node with
 * it) is imported only when one of them is selected. A kubeconfig that cannot be loaded throws a
 * ConfigError naming its setting.
 */
export async function createSource(inputs: SourceInputs): Promise<DiscoveredSource> {
  const { config, tls } = inputs;
  if (config.mode !== 'static') {
    const { createKubeSource } = await import('./create-kube-source.ts');
    return createKubeSource(inputs);
  }
  return new StaticSource({ endpoints: config.endpoints, discover: config.discover, tls, timeoutMs: config.timeoutMs });
}
