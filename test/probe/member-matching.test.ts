import { describe, expect, it } from 'vitest';
import { claimOf, impersonated, relate, type Relation } from '../../src/probe/member-matching.ts';
import type { EndpointObservation, ListedMember } from '../../src/probe/observations.ts';
import { probeError, type Outcome } from '../../src/probe/outcome.ts';

// The rules that decide which observation speaks for which member, each in its own rows.

const m1: ListedMember = { id: '1', name: 'n1', peerURLs: [], clientURLs: ['https://10.0.0.1:2379'], isLearner: false };
const m2: ListedMember = { id: '2', name: 'n2', peerURLs: [], clientURLs: ['https://10.0.0.2:2379'], isLearner: false };
const MEMBERS = [m1, m2];

const failed: Outcome<never> = { ok: false, error: probeError('TIMEOUT', 'timeout'), ms: 1 };

/** An observation at `endpoint` (optionally standing for `node`) that answered as `answeredAs`, or failed (null). */
function seen(endpoint: string, answeredAs: string | null, node?: string): EndpointObservation {
  const target = { key: endpoint, endpoint, origin: node ? ('kubernetes' as const) : ('configured' as const), ...(node ? { node } : {}) };
  if (answeredAs === null) return { target, status: failed, health: failed, memberList: failed, alarmList: null };
  const listing: Outcome<{ clusterId: string; memberId: string; members: ListedMember[] }> = { ok: true, value: { clusterId: 'c', memberId: answeredAs, members: MEMBERS }, ms: 1 };
  return { target, status: failed, health: failed, memberList: listing, alarmList: null };
}

describe('claim: where a member should answer', () => {
  it.each([
    ['its advertised client URL', seen('https://10.0.0.1:2379', null), m1, 'advertised-url'],
    ['its advertised URL written differently (case, trailing slash)', seen('HTTPS://10.0.0.1:2379/', null), m1, 'advertised-url'],
    ["the etcd of the node named like it", seen('port-forward://kube-system/etcd-n1:2379', null, 'n1'), m1, 'node-name'],
    ["another member's URL", seen('https://10.0.0.2:2379', null), m1, null],
    ['a load balancer in front of the members', seen('https://etcd-lb:2379', null), m1, null],
    ['a member without a name never claims a node', seen('port-forward://x', null, ''), { ...m1, name: '' }, null],
  ] as const)('%s', (_name, o, member, claim) => {
    expect(claimOf(o, member)).toBe(claim);
  });
});

describe('relate: which observations speak for a member', () => {
  it.each<[string, EndpointObservation, ListedMember, Relation]>([
    ['answered with its ID at its URL', seen('https://10.0.0.1:2379', '1'), m1, 'answered-as'],
    ['answered with its ID through a load balancer', seen('https://etcd-lb:2379', '1'), m1, 'answered-as'],
    ['failed at its URL before saying who it is', seen('https://10.0.0.1:2379', null), m1, 'stands-for'],
    ["failed at its node's etcd", seen('port-forward://kube-system/etcd-n1:2379', null, 'n1'), m1, 'stands-for'],
    ['another member answered at its URL: an impostor, for the member it stands for', seen('https://10.0.0.1:2379', '2'), m1, 'impostor'],
    ['...and the member that answered does not get that answer either', seen('https://10.0.0.1:2379', '2'), m2, 'unrelated'],
    ["another member answered at its node's etcd", seen('port-forward://kube-system/etcd-n1:2379', '2', 'n1'), m1, 'impostor'],
    ['a load balancer answering as another member is unrelated', seen('https://etcd-lb:2379', '2'), m1, 'unrelated'],
    ['a failure elsewhere is unrelated', seen('https://etcd-lb:2379', null), m1, 'unrelated'],
  ])('%s', (_name, o, member, relation) => {
    expect(relate(o, member, MEMBERS)).toBe(relation);
  });

  it('names the member an impostor stands for', () => {
    expect(impersonated(seen('https://10.0.0.1:2379', '2'), MEMBERS)).toBe(m1);
    expect(impersonated(seen('https://10.0.0.2:2379', '2'), MEMBERS)).toBeNull();
    expect(impersonated(seen('https://10.0.0.1:2379', null), MEMBERS)).toBeNull();
  });
});
