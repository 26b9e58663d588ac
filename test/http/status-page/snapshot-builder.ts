import { statusPageModel, type StatusPageModel } from '../../../src/http/status-page/page-model.ts';
import type { Snapshot } from '../../../src/probe/snapshot.ts';
import { snapshotOf as judged } from '../../probe/snapshot-builder.ts';
import { round, type FakeMember, type RoundOptions } from '../../probe/observation-builders.ts';

// Snapshots built the way the prober builds them (observations -> view -> verdict), from fake rounds.

/** 2 GiB, etcd's default quota. */
export const QUOTA = 2 * 2 ** 30;
/** When the fake round finished. */
export const CHECKED_AT = Date.parse('2026-12-02T12:00:00.000Z');

/** A snapshot of one fake round, judged against QUOTA (or the quota given). */
export function snapshotOf(members: readonly FakeMember[], options: RoundOptions = {}, quotaBytes = QUOTA): Snapshot {
  return judged(round(members, options), CHECKED_AT, { quotaBytes });
}

/** The page model of a snapshot read `ageMs` after its round finished. */
export function modelOf(snapshot: Snapshot, settings: { cacheTtlMs?: number; quotaBytes?: number; ageMs?: number } = {}): StatusPageModel {
  return statusPageModel(
    { value: snapshot, completedAt: CHECKED_AT, cache: 'hit' },
    { policy: 'quorum', cacheTtlMs: settings.cacheTtlMs ?? 5000, quotaBytes: settings.quotaBytes ?? QUOTA },
    CHECKED_AT + (settings.ageMs ?? 0),
  );
}
