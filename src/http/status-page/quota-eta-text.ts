import { formatBytes } from '../../probe/format-bytes.ts';
import { formatDuration } from '../../probe/format-duration.ts';
import type { MemberDoc } from './page-model.ts';

/** Why no ETA is served, as the page says it (each is a clause of the rule in docs/metrics-and-alerts.md). */
const WITHHELD: Readonly<Record<string, string>> = {
  'below-floor': 'none: under half the quota in use',
  'at-quota': 'none: at the quota (NOSPACE)',
  'too-few-samples': 'none yet: too few rounds since the last fall',
  'too-short': 'none yet: the trend is too short',
  'not-rising': 'none: not growing',
  slowing: 'none: growth slowing',
  accelerating: 'none: growth accelerating, a line would be too late',
  unsteady: 'none: growth not steady',
  'too-far': 'none: beyond 4 times the span it is fitted on',
};

/** A member's quota ETA in words: "NOSPACE in about 5h40m (grows 12 MiB/h)", or why there is none. */
export function quotaEtaText(eta: NonNullable<MemberDoc['quotaEta']>): string {
  if (eta.etaSeconds === null) return WITHHELD[eta.withheld ?? ''] ?? 'none';
  return `NOSPACE in about ${formatDuration(eta.etaSeconds * 1000)} (grows ${formatBytes((eta.growthBytesPerSecond ?? 0) * 3600)}/h)`;
}
