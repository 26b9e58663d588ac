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

  // Issue 25, a low: with https endpoints, discovery followed an http:// client URL from MemberList in
  // clear text (MemberList is whatever a member says). Now it is refused, not dialled.
  describe('discovery with https endpoints', () => {
    const listed = (id: string, urls: string[]): ListedMember => ({ id, name: id, peerURLs: [], clientURLs: urls, isLearner: false });

    it('refuses a member that advertises only http, without dialling it', async () => {
      const source = new StaticSource({ endpoints: ['https://a:2379'], discover: true, tls: files(), timeoutMs: 1000 });
      const targets = await source.targets([listed('8e9e05c52164694d', ['https://a:2379']), listed('91bc3c398fb3c146', ['http://b:2379'])]);
      const b = targets.find((t) => t.origin === 'discovered');
      expect(b?.endpoint).toBe('http://b:2379');
      const client = source.connect(b!);
      const started = performance.now();
      const outcome = await client.status();
      expect(performance.now() - started).toBeLessThan(50);
      expect(outcome).toMatchObject({
        ok: false,
        error: { code: 'ENDPOINT_REFUSED', layer: 'tls', message: 'not dialled: member 91bc3c398fb3c146 advertises http://b:2379 in MemberList, which is not https while every configured endpoint is (the client certificate is offered over TLS only)' },
      });
    });

    it('takes the https URL of a member that advertises both, whichever comes first', async () => {
      const source = new StaticSource({ endpoints: ['https://a:2379'], discover: true, tls: files(), timeoutMs: 1000 });
      const targets = await source.targets([listed('91bc3c398fb3c146', ['http://b:2379', 'https://b:2379'])]);
      expect(targets.map((t) => t.endpoint)).toEqual(['https://a:2379', 'https://b:2379']);
      const client = source.connect(targets[1]!);
      expect(client.constructor.name).not.toBe('RefusedMemberClient');
      client.close();
    });

    it('follows http when the operator configured http endpoints (clear text was chosen)', async () => {
      const source = new StaticSource({ endpoints: ['http://a:2379'], discover: true, tls: files(), timeoutMs: 1000 });
      const [, b] = await source.targets([listed('91bc3c398fb3c146', ['http://b:2379'])]);
      const client = source.connect(b!);
      expect(client.constructor.name).not.toBe('RefusedMemberClient');
      client.close();
    });
  });
});

