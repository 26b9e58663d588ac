import { Gauge, type Registry } from 'prom-client';
import { shortName } from '../probe/reason.ts';
import type { Snapshot } from '../probe/snapshot.ts';

const OUTCOMES = ['consistent', 'partial', 'diverged', 'not-compared'] as const;

/** The divergence check's metrics: when it last compared, how that came out, and each member's part. None before its first comparison. */
export class DataCheckMetrics {
  readonly #at: Gauge;
  readonly #outcome: Gauge<'outcome'>;
  readonly #diverged: Gauge<'member' | 'id'>;
  readonly #compared: Gauge<'member' | 'id'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#at = new Gauge({ name: 'etcd_probe_data_check_timestamp_seconds', help: "When the divergence check last compared the members' data (Unix time).", registers });
    this.#outcome = new Gauge({ name: 'etcd_probe_data_check_outcome', help: 'The last data comparison: 1 for how it came out (consistent, partial, diverged, not-compared), 0 for the others.', labelNames: ['outcome'], registers });
    this.#diverged = new Gauge({ name: 'etcd_probe_member_data_diverged', help: "Whether the member's HashKV differed from the majority's in the last two comparisons (DATA_DIVERGED).", labelNames: ['member', 'id'], registers });
    this.#compared = new Gauge({ name: 'etcd_probe_member_data_compared', help: "Whether the member's data were compared in the last comparison (0: DATA_NOT_COMPARED).", labelNames: ['member', 'id'], registers });
  }

  /** Replaces the series with the findings the round was judged with. */
  record(snapshot: Snapshot): void {
    const findings = snapshot.data;
    if (!findings) return;
    const { last } = findings;
    this.#at.set(last.at / 1000);
    for (const o of OUTCOMES) this.#outcome.set({ outcome: o }, o === last.outcome ? 1 : 0);
    this.#diverged.reset();
    this.#compared.reset();
    for (const m of last.members) {
      const member = snapshot.view.members.find((v) => v.id === m.memberId);
      const labels = { member: member ? shortName(member) : m.memberId, id: m.memberId };
      this.#diverged.set(labels, findings.diverged.includes(m.memberId) ? 1 : 0);
      this.#compared.set(labels, m.state === 'not-compared' ? 0 : 1);
    }
  }
}
