import type { ClusterView } from './cluster-view.ts';
import { membershipSignature } from './cluster-view.ts';
import { echoesKubeApi } from './kube-checks.ts';
import { label, reason, type MemberRef, type Reason } from './reason.ts';

function refOf(view: ClusterView, id: string): MemberRef {
  return { id, name: view.members.find((m) => m.id === id)?.name ?? '' };
}

/** NO_MEMBER_REACHABLE, with every endpoint's error, when nothing of this cluster answered (and not only for want of the Kubernetes API). */
export function judgeReachability(view: ClusterView): Reason[] {
  if (view.endpoints.some((e) => e.reachable && e.clusterId === view.clusterId)) return [];
  // Every endpoint failed because the Kubernetes API could not be used: KUBE_API_* says so once.
  if (view.endpoints.length > 0 && view.endpoints.every((e) => echoesKubeApi(view, e.error?.layer))) return [];
  const errors = view.endpoints.map((e) => `${e.endpoint}: ${e.error?.message ?? 'answers for another cluster'}`);
  return [reason('NO_MEMBER_REACHABLE', `no etcd member answered (${errors.join('; ') || 'no endpoint to probe'})`)];
}

/**
 * MEMBER_UNREACHABLE for a probed endpoint that failed and stands for no known member (a load balancer
 * or an alias of a member, say): nobody else would mention it.
 */
export function judgeStrayEndpoints(view: ClusterView): Reason[] {
  const anyAnswered = view.endpoints.some((e) => e.reachable && e.clusterId === view.clusterId);
  if (!anyAnswered) return [];
  const memberEndpoints = new Set(view.members.map((m) => m.endpoint));
  return view.endpoints
    .filter((e) => !e.reachable && e.memberId === null && e.clusterId === null && !memberEndpoints.has(e.endpoint) && !echoesKubeApi(view, e.error?.layer))
    .map((e) =>
      reason('MEMBER_UNREACHABLE', `endpoint ${e.endpoint} (no known member advertises it): ${e.error?.message ?? 'no answer'}`, {
        endpoint: e.endpoint,
      }),
    );
}

/** CLUSTER_ID_MISMATCH for every endpoint that answers for another cluster. */
export function judgeClusterIds(view: ClusterView): Reason[] {
  return view.foreign.map((e) =>
    reason('CLUSTER_ID_MISMATCH', `${e.endpoint} answers for cluster ${e.clusterId}, not ${view.clusterId}`, { endpoint: e.endpoint }),
  );
}

/** ALARM_NOSPACE and ALARM_CORRUPT, one per member and alarm. */
export function judgeAlarms(view: ClusterView): Reason[] {
  const source = view.alarmSource === 'alarm-list' ? 'the alarm list' : "the members' Status";
  return view.alarms.map((a) => {
    const member = refOf(view, a.memberId);
    return a.alarm === 'NOSPACE'
      ? reason('ALARM_NOSPACE', `${label(member)} raised NOSPACE: its database hit the quota and etcd refuses writes (from ${source})`, { member })
      : reason('ALARM_CORRUPT', `${label(member)} raised CORRUPT: its data diverges from the other members' (from ${source})`, { member });
  });
}

/** MEMBER_LIST_MISMATCH when members report different memberships. */
export function judgeMembership(view: ClusterView): Reason[] {
  const bySignature = new Map<string, string[]>();
  for (const r of view.reportedMemberships) {
    const signature = membershipSignature(r.members);
    const reporters = bySignature.get(signature) ?? [];
    if (!reporters.includes(r.reporterId)) reporters.push(r.reporterId);
    bySignature.set(signature, reporters);
  }
  const strangers = view.members
    .filter((m) => !m.listed && view.membershipSource !== 'none')
    .map((m) =>
      reason('MEMBER_LIST_MISMATCH', `${m.endpoint} answers as member ${m.id}, which the membership does not list`, {
        member: m,
        endpoint: m.endpoint,
      }),
    );
  if (bySignature.size <= 1) return strangers;
  const views = [...bySignature.entries()].map(
    ([signature, reporters]) => `${reporters.map((id) => label(refOf(view, id))).join(', ')} list [${signature}]`,
  );
  return [reason('MEMBER_LIST_MISMATCH', `members disagree on the membership: ${views.join('; ')}`), ...strangers];
}

/** VERSION_SKEW when reachable members run different etcd versions. */
export function judgeVersions(view: ClusterView): Reason[] {
  const byVersion = new Map<string, string[]>();
  for (const m of view.members) {
    if (m.status) byVersion.set(m.status.version, [...(byVersion.get(m.status.version) ?? []), label(m)]);
  }
  if (byVersion.size <= 1) return [];
  const parts = [...byVersion.entries()].map(([version, names]) => `${version} (${names.join(', ')})`);
  return [reason('VERSION_SKEW', `members run different etcd versions: ${parts.join(', ')}`)];
}
