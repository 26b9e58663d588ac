import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3MemberClient } from '../../src/etcd/etcd3-member-client.ts';
import type { TlsMaterial } from '../../src/tls/tls-files.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { connectionsTo } from '../helpers/proc-sockets.ts';

// A member client's connection is its own: the prober's redial after a timeout (a new client) relies on
// a new client dialling a new connection rather than being handed the old client's stalled one. Since
// src/etcd/etcd3-member-client.ts gives etcd3's three service clients one channel with its own subchannel
// pool, that is so by construction; before, they made three channels on gRPC's process-wide pool, which
// (this test showed, on that code too) did not share connections between clients either.

let cluster: EtcdCluster;
let tls: TlsMaterial;
const POLL = { timeout: 5000, interval: 50 };

function memberPort(): number {
  return Number(new URL(cluster.endpoints.split(',')[0] as string).port);
}

function connections(): number {
  return connectionsTo(new Set([memberPort()]));
}

function client(): Etcd3MemberClient {
  return new Etcd3MemberClient({ endpoint: cluster.endpoints.split(',')[0] as string, tls, timeoutMs: 2000 });
}

async function everyCall(c: Etcd3MemberClient): Promise<boolean[]> {
  const outcomes = await Promise.all([c.status(), c.healthRead(), c.memberList(), c.alarmList()]);
  return outcomes.map((o) => o.ok);
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  const pki = cluster.pki!;
  tls = { ca: readFileSync(pki.caFile), cert: readFileSync(pki.clientCertFile), key: readFileSync(pki.clientKeyFile) };
});

afterAll(async () => {
  await cluster?.stop();
});

describe("a member client's connection", () => {
  it('is one for all four calls, one per client even with equal credentials, and closes with its client', async () => {
    await expect.poll(connections, POLL).toBe(0);
    const first = client();
    expect(await everyCall(first)).toEqual([true, true, true, true]);
    // Status and the alarm list (Maintenance), the read (KV) and the member list (Cluster) share it.
    expect(connections()).toBe(1);

    const second = client();
    expect(await everyCall(second)).toEqual([true, true, true, true]);
    expect(connections()).toBe(2);

    first.close();
    await expect.poll(connections, POLL).toBe(1);
    expect(await everyCall(second)).toEqual([true, true, true, true]);
    second.close();
    await expect.poll(connections, POLL).toBe(0);
  });

  it('is closed by release() and dialled again by the next call, also at once after the release; after close() nothing is dialled', async () => {
    await expect.poll(connections, POLL).toBe(0);
    const c = client();
    // Each round: every call's outcome, then the connections once the release took effect.
    const rounds: { calls: boolean[]; after: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const calls = await everyCall(c);
      await c.release();
      // The first two rounds begin right after the release; the last waits for the connection to close.
      if (i === 2) await expect.poll(connections, POLL).toBe(0);
      rounds.push({ calls, after: i === 2 ? connections() : -1 });
    }
    expect(rounds).toEqual([
      { calls: [true, true, true, true], after: -1 },
      { calls: [true, true, true, true], after: -1 },
      { calls: [true, true, true, true], after: 0 },
    ]);
    c.close();
    expect((await c.status()).ok).toBe(false);
    expect(connections()).toBe(0);
  });

  it('is dialled anew for a client made while the old one hangs on a stopped member', async () => {
    await expect.poll(connections, POLL).toBe(0);
    const old = client();
    expect(await everyCall(old)).toEqual([true, true, true, true]);
    cluster.pause(0);
    try {
      expect((await old.status()).ok).toBe(false);
      // The prober's redial after a timeout: a new client. The stopped member's kernel still accepts TCP.
      const fresh = client();
      const pending = fresh.status();
      await expect.poll(connections, POLL).toBe(2);
      cluster.resume(0);
      expect((await pending).ok).toBe(true);
      fresh.close();
    } finally {
      cluster.resume(0);
      old.close();
    }
    await expect.poll(connections, POLL).toBe(0);
  });
});
