import { describe, expect, it } from 'vitest';
import { StaticSource } from '../../src/discovery/static-source.ts';
import type { ListedMember } from '../../src/probe/observations.ts';
import type { TlsMaterial } from '../../src/tls/tls-files.ts';
import type { TlsProvider } from '../../src/tls/tls-provider.ts';

// Static mode rotates credentials the way the Kubernetes modes do (probe/member-source.ts): new files
// make a new generation in every target's key, so the prober dials the round with new clients and
// closes the old ones. The clients themselves are tested against real etcd (test/integration).

/** Certificate files that change when the test says so. */
function files(): TlsProvider & { change(): void; checks: number } {
  let material: TlsMaterial = { ca: Buffer.from('ca 1'), cert: null, key: null };
  let changed = false;
  return {
    checks: 0,
    current: () => material,
    refresh() {
      this.checks++;
      const was = changed;
      changed = false;
      return was;
    },
    change() {
      material = { ca: Buffer.from(`ca ${Date.now()}`), cert: null, key: null };
      changed = true;
    },
  };
}

const member = (id: string, url: string): ListedMember => ({ id, name: id, peerURLs: [], clientURLs: [url], isLearner: false });

describe('StaticSource', () => {
  it('keeps its target keys while the files stay the same', async () => {
    const tls = files();
    const source = new StaticSource({ endpoints: ['http://a:2379', 'http://b:2379'], discover: false, tls, timeoutMs: 1000 });
    await source.refresh();
    const before = (await source.targets([])).map((t) => t.key);
    await source.refresh();
    expect((await source.targets([])).map((t) => t.key)).toEqual(before);
    expect(tls.checks).toBe(2);
  });

  it('gives every target, configured and discovered, a new key once the files changed', async () => {
    const tls = files();
    const source = new StaticSource({ endpoints: ['http://a:2379'], discover: true, tls, timeoutMs: 1000 });
    const listed = [member('a', 'http://a:2379'), member('b', 'http://b:2379')];
    const before = await source.targets(listed);
    expect(before.map((t) => [t.endpoint, t.origin])).toEqual([['http://a:2379', 'configured'], ['http://b:2379', 'discovered']]);

    tls.change();
    // Synchronously, before the prober asks for targets: the round that sees the change dials with it.
    void source.refresh();
    const after = await source.targets(listed);
    expect(after.map((t) => [t.endpoint, t.origin])).toEqual(before.map((t) => [t.endpoint, t.origin]));
    for (const [i, t] of after.entries()) expect(t.key).not.toBe(before[i]?.key);
  });

  it('answers no Kubernetes facts from its refresh', async () => {
    const source = new StaticSource({ endpoints: ['http://a:2379'], discover: false, tls: files(), timeoutMs: 1000 });
    expect(await source.refresh()).toBeNull();
  });
});
