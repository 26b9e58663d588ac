import { describe, expect, it } from 'vitest';
import type { MemberSource } from '../../src/probe/member-source.ts';
import type { EndpointObservation } from '../../src/probe/observations.ts';
import { Prober } from '../../src/probe/prober.ts';
import { ScriptedClient } from '../helpers/scripted-source.ts';
import { round, three } from './observation-builders.ts';

const THRESHOLDS = {
  quotaBytes: 2 * 2 ** 30,
  maxRaftGap: 1000,
  nodeGraceMs: 120_000,
  electionGraceMs: 10_000,
  leaderChangesMax: 3,
  leaderChangesWindowMs: 600_000,
  flapChangesMax: 4,
  flapWindowMs: 600_000,
  stallRounds: 3,
  quotaEtaThresholdMs: 86_400_000,
  quotaEtaWindowMs: 21_600_000,
};
const HISTORY = { windowMs: 3_600_000, maxBytes: 1_000_000, checksMs: 600_000 };

/** A source whose target keys carry a credentials generation, as every real source's do. */
function rotatingSource(observations: readonly EndpointObservation[]): MemberSource & { generation: number; clients: ScriptedClient[] } {
  const clients: ScriptedClient[] = [];
  return {
    mode: 'static',
    generation: 1,
    clients,
    async targets() {
      return observations.map((o) => ({ ...o.target, key: `${o.target.key}#${this.generation}` }));
    },
    connect(target) {
      const client = new ScriptedClient(observations.find((o) => target.key.startsWith(`${o.target.key}#`)) as EndpointObservation);
      clients.push(client);
      return client;
    },
    async close() {},
  };
}

describe('Prober: credential rotation', () => {
  it('keeps one client per target across rounds while the keys stay', async () => {
    const source = rotatingSource(round(three()).endpoints);
    const prober = new Prober({ source, thresholds: THRESHOLDS, history: HISTORY, now: () => 1_000_000 });
    await prober.round();
    await prober.round();
    expect(source.clients).toHaveLength(3);
    expect(source.clients.every((c) => !c.closed)).toBe(true);
    prober.close();
    expect(source.clients.every((c) => c.closed)).toBe(true);
  });

  it('dials a round with new clients when the keys change, and closes the old ones', async () => {
    const source = rotatingSource(round(three()).endpoints);
    const prober = new Prober({ source, thresholds: THRESHOLDS, history: HISTORY, now: () => 1_000_000 });
    await prober.round();
    const old = [...source.clients];
    source.generation++;
    const snapshot = await prober.round();
    expect(snapshot.verdict.status).toBe('healthy');
    expect(source.clients).toHaveLength(6);
    expect(old.every((c) => c.closed)).toBe(true);
    expect(source.clients.slice(3).every((c) => !c.closed)).toBe(true);
    expect(prober.openClients).toBe(3);
    prober.close();
  });
});
