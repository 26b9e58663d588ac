import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3MemberClient } from '../../src/etcd/etcd3-member-client.ts';
import { confirmedDiverged, type DataComparison } from '../../src/probe/data-check/compare-hashes.ts';
import { runDataCheck, type DataCheckMember } from '../../src/probe/data-check/run-data-check.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Real divergence on a real cluster: one member's stored value is changed in its bbolt file while it is
// stopped (same length, so the file stays valid), and the divergence check must name exactly that member;
// a second cluster, untouched, under writes and compactions, must never be called diverged.

const TIMEOUT_MS = 10_000;

function checkMembers(cluster: EtcdCluster): { members: DataCheckMember[]; close: () => void } {
  const pki = cluster.pki as NonNullable<EtcdCluster['pki']>;
  const tls = { ca: readFileSync(pki.caFile), cert: readFileSync(pki.clientCertFile), key: readFileSync(pki.clientKeyFile) };
  const clients = cluster.members.map((m) => new Etcd3MemberClient({ endpoint: m.clientUrl, tls, timeoutMs: 5000 }));
  return {
    members: clients.map((client, i) => ({ memberId: String(i), client })),
    close: () => clients.forEach((c) => c.close()),
  };
}

/** Replaces every occurrence of `from` with `to` (same length) in the file; how many it replaced. */
function patchFile(file: string, from: Buffer, to: Buffer): number {
  const data = readFileSync(file);
  let count = 0;
  for (let at = data.indexOf(from); at !== -1; at = data.indexOf(from, at + from.length)) {
    to.copy(data, at);
    count++;
  }
  writeFileSync(file, data);
  return count;
}

describe('a member whose stored value was changed in its bbolt file', () => {
  let cluster: EtcdCluster;
  let check: ReturnType<typeof checkMembers>;
  const tampered = 1;

  beforeAll(async () => {
    cluster = await EtcdCluster.start({ size: 3 });
    const writer = cluster.client(0);
    try {
      for (let i = 0; i < 20; i++) await writer.put(`config/${i}`).value(`value-${i}`);
      await writer.put('config/secret').value('ORIGINAL-VALUE-0123456789');
      for (let i = 20; i < 40; i++) await writer.put(`config/${i}`).value(`value-${i}`);
    } finally {
      writer.close();
    }
    await cluster.stopGracefully(tampered);
    const db = join(cluster.member(tampered).dataDir, 'member', 'snap', 'db');
    expect(patchFile(db, Buffer.from('ORIGINAL-VALUE-0123456789'), Buffer.from('TAMPERED-VALUE-0123456789'))).toBeGreaterThan(0);
    await cluster.restart(tampered);
    check = checkMembers(cluster);
  }, 60_000);

  afterAll(async () => {
    check?.close();
    await cluster?.stop();
  });

  it('serves the changed value from that member only (the tampering took)', async () => {
    const values = await Promise.all(
      cluster.members.map(async (_, i) => {
        const client = cluster.client(i);
        try {
          return (await client.get('config/secret').serializable(true).string()) ?? null;
        } finally {
          client.close();
        }
      }),
    );
    expect(values).toEqual(['ORIGINAL-VALUE-0123456789', 'TAMPERED-VALUE-0123456789', 'ORIGINAL-VALUE-0123456789']);
  });

  it('is named diverged, alone, by two comparisons in a row', async () => {
    const first = await runDataCheck(check.members, TIMEOUT_MS, Date.now);
    const second = await runDataCheck(check.members, TIMEOUT_MS, Date.now);
    for (const comparison of [first, second]) {
      expect(comparison.outcome).toBe('diverged');
      expect(comparison.members.map((m) => m.state)).toEqual(['agrees', 'diverged', 'agrees']);
      expect(comparison.revision).not.toBeNull();
    }
    expect(confirmedDiverged(first, second)).toEqual([String(tampered)]);
  });

  it('makes the service degraded with DATA_DIVERGED naming that member, after two comparisons on its own schedule, and shows it in /members', async () => {
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: '0s', ETCD_PROBE_DATA_CHECK_INTERVAL: '5s', ETCD_PROBE_POLICY: 'strict' });
    try {
      const seen: string[] = [];
      const deadline = Date.now() + 40_000;
      let last: { status: number; body: { status: string; reasons: { code: string; member: { name: string } | null }[] } } | null = null;
      while (Date.now() < deadline) {
        last = await get(`${service.url}/healthz/etcd`);
        const codes = last.body.reasons.filter((r) => r.code.startsWith('DATA_')).map((r) => `${r.code}:${r.member?.name ?? ''}`);
        seen.push(codes.join(',') || 'none');
        if (codes.includes('DATA_DIVERGED:m2')) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      // Rounds before the second comparison carry nothing about data (the first comparison alone names nobody).
      expect(seen[0]).toBe('none');
      expect(seen.at(-1)).toBe('DATA_DIVERGED:m2');
      expect(seen.every((s) => s === 'none' || s === 'DATA_DIVERGED:m2')).toBe(true);
      expect(last?.body.status).toBe('degraded');
      // Strict policy: a member serving different data fails the gate.
      expect(last?.status).toBe(503);
      const members = await get(`${service.url}/members`);
      expect(checkResponse('GET', '/members', members)).toEqual([]);
      const checks = members.body.members.map((m: { name: string; dataCheck: { state: string; diverged: boolean; revision: string; hash: string } }) => [m.name, m.dataCheck.state, m.dataCheck.diverged]);
      expect(checks.sort()).toEqual([['m1', 'agrees', false], ['m2', 'diverged', true], ['m3', 'agrees', false]]);
      const metrics = await fetch(`${service.url}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^etcd_probe_member_data_diverged\{member="m2",id="[0-9a-f]+"\} 1$/m);
      expect(metrics).toMatch(/^etcd_probe_data_check_outcome\{outcome="diverged"\} 1$/m);
    } finally {
      await service.close();
    }
  }, 60_000);
});

describe('an untouched cluster under writes and compactions', () => {
  let cluster: EtcdCluster;
  let check: ReturnType<typeof checkMembers>;

  beforeAll(async () => {
    cluster = await EtcdCluster.start({ size: 3 });
    check = checkMembers(cluster);
  }, 60_000);

  afterAll(async () => {
    check?.close();
    await cluster?.stop();
  });

  it('is never called diverged over 20 comparisons while revisions move and compactions run', async () => {
    const writer = cluster.client(0);
    let writing = true;
    let writes = 0;
    let compactions = 0;
    const load = (async () => {
      while (writing) {
        const put = await writer.put(`load/${writes % 50}`).value(`v${writes}`).exec();
        writes++;
        // Compact often, up to a recent revision, so that comparisons race with compactions.
        if (writes % 5 === 0) {
          await writer.kv.compact({ revision: String(BigInt(put.header.revision) - 5n) });
          compactions++;
        }
      }
    })();
    const comparisons: DataComparison[] = [];
    try {
      while (comparisons.length < 20) comparisons.push(await runDataCheck(check.members, TIMEOUT_MS, Date.now));
    } finally {
      writing = false;
      await load;
      writer.close();
    }
    const outcomes = comparisons.map((c) => c.outcome);
    const revisions = new Set(comparisons.map((c) => c.revision));
    console.log(`20 comparisons: ${outcomes.filter((o) => o === 'consistent').length} consistent, ${outcomes.filter((o) => o === 'partial').length} partial, ${outcomes.filter((o) => o === 'not-compared').length} not compared; ${revisions.size} revisions, ${writes} writes, ${compactions} compactions`);
    // What kept a comparison from "consistent" (the first one can find the store still empty: no revision to pin).
    for (const c of comparisons.filter((x) => x.outcome !== 'consistent')) console.log(`not consistent at revision ${c.revision}: ${c.members.map((m) => m.why).join(' / ')}`);
    expect(outcomes).not.toContain('diverged');
    expect(comparisons.flatMap((c) => c.members).map((m) => m.state)).not.toContain('diverged');
    // The comparisons did run while the store moved: most compared all three members, at many revisions.
    expect(outcomes.filter((o) => o === 'consistent').length).toBeGreaterThanOrEqual(10);
    expect(revisions.size).toBeGreaterThanOrEqual(10);
    expect(compactions).toBeGreaterThan(0);
  }, 120_000);
});
