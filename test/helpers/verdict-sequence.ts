import { appendFileSync } from 'node:fs';
import { distinctErrors, formatSamples, type VerdictRecorder, type VerdictSample } from './verdict-recorder.ts';

// Assertions on a recorded verdict sequence: a regex over one symbol per sample, invariants that hold
// in every sample (the verdict contract's rules among them), and a state that must be reached by a
// bound and then kept. A failure lists every broken rule and prints the phase's whole record.

/** A rule every sample of a phase must satisfy. */
export type Invariant = (s: VerdictSample) => boolean;

/** H healthy, D degraded, E degraded by NO_LEADER (an election), Q QUORUM_LOST, U other unhealthy, X no answer. */
export function symbolOf(s: VerdictSample): string {
  if (s.http === 0) return 'X';
  if (s.codes.includes('QUORUM_LOST')) return 'Q';
  if (s.status === 'unhealthy') return 'U';
  if (s.status === 'degraded') return s.codes.includes('NO_LEADER') ? 'E' : 'D';
  return s.status === 'healthy' ? 'H' : 'X';
}

/**
 * The phase's symbols, one per sample; lower case for a sample sent before the mark (its round
 * straddles the fault, so it may show either side or a mix), so that patterns can tell it apart.
 */
export function symbols(samples: readonly VerdictSample[]): string {
  return samples.map((s) => (s.t < 0 ? symbolOf(s).toLowerCase() : symbolOf(s))).join('');
}

/** Names of the members a sample reports unreachable (MEMBER_UNREACHABLE). */
export function unreachable(s: VerdictSample): string[] {
  return s.reasons.flatMap((r) => (/^MEMBER_UNREACHABLE\((.*)\)$/.exec(r)?.[1] ?? []) as string[]);
}

const answered = (s: VerdictSample) => (s.quorum ? s.quorum.voting - unreachable(s).length : 0);
const readPassed = (s: VerdictSample) => (s.quorum?.healthyVoting ?? 0) > 0;

/** The verdict contract (issue 9), checked in every sample of every phase. */
export const CONTRACT: Readonly<Record<string, Invariant>> = {
  'a passed read rules out QUORUM_LOST': (s) => !(readPassed(s) && s.codes.includes('QUORUM_LOST')),
  'a passed read, members unreachable and fewer than a majority seen healthy: degraded + QUORUM_MARGIN_UNKNOWN': (s) =>
    !(readPassed(s) && s.quorum && s.quorum.healthyVoting < s.quorum.required && unreachable(s).length > 0) ||
    (s.status === 'degraded' && s.codes.includes('QUORUM_MARGIN_UNKNOWN')),
  'a majority answering without a read is NO_LEADER (degraded) or QUORUM_LOST': (s) =>
    !(s.quorum && !readPassed(s) && answered(s) >= s.quorum.required && s.quorum.voting > 0) ||
    (s.codes.includes('NO_LEADER') && s.status === 'degraded') ||
    s.codes.includes('QUORUM_LOST'),
  'a minority answering without a read is QUORUM_LOST (NO_MEMBER_REACHABLE when none answers)': (s) =>
    !(s.quorum && !readPassed(s) && answered(s) < s.quorum.required) ||
    s.codes.includes('QUORUM_LOST') ||
    (answered(s) === 0 && s.codes.includes('NO_MEMBER_REACHABLE')),
  'NO_LEADER only in rounds where no read passed': (s) => !(readPassed(s) && s.codes.includes('NO_LEADER')),
  'the leader answered, or a read passed and it is flagged reachable: false': (s) =>
    !s.leader || !unreachable(s).includes(s.leader.name) || (readPassed(s) && s.leader.reachable === false),
};

/** Invariant: never unhealthy (every single-member fault and a rolling restart). */
export const neverUnhealthy: Invariant = (s) => s.status !== 'unhealthy' && !s.codes.includes('QUORUM_LOST');

/**
 * Invariant: the body's leader is never this member in rounds that started after the mark, except
 * flagged reachable: false. That exception is a real race: Status, answered before the election ended,
 * names the old leader while the read sent alongside it passes through the new one; the contract then
 * names the leader the members named, flagged unreachable.
 */
export function leaderIsNot(name: string): Invariant {
  return (s) => s.t < 0 || s.leader?.name !== name || s.leader.reachable === false;
}

/** What must hold for one phase of a scenario. */
export interface PhaseRules {
  /** Matched against the phase's symbols (see symbols()); anchor it. */
  readonly pattern?: RegExp;
  /** More invariants for every sample of the phase, by name (CONTRACT always applies). */
  readonly always?: Readonly<Record<string, Invariant>>;
  /** A sample that passes `test` must have been answered within `withinMs` of the mark... */
  readonly reaches?: {
    readonly what: string;
    readonly test: Invariant;
    readonly withinMs: number;
    /** ...and every later sample of the phase must pass this (no flapping). */
    readonly thenAlways?: Invariant;
  };
}

function check(samples: readonly VerdictSample[], rules: PhaseRules): string[] {
  const broken: string[] = [];
  const line = symbols(samples);
  if (rules.pattern && !rules.pattern.test(line)) broken.push(`symbols ${line} do not match ${rules.pattern}`);
  for (const [name, test] of Object.entries({ ...CONTRACT, ...rules.always })) {
    const bad = samples.filter((s) => !test(s));
    if (bad.length > 0) broken.push(`${name}: broken by ${bad.length} sample(s), first at t=${bad[0]?.t}ms`);
  }
  if (rules.reaches) {
    const { what, test, withinMs, thenAlways } = rules.reaches;
    const index = samples.findIndex(test);
    const first = samples[index];
    if (!first) broken.push(`never reached: ${what}`);
    else {
      const at = first.t + first.ms;
      if (at > withinMs) broken.push(`reached ${what} at ${at}ms, after the bound of ${withinMs}ms`);
      const later = thenAlways ? samples.slice(index).filter((s) => !thenAlways(s)) : [];
      if (later.length > 0) broken.push(`after reaching ${what}, ${later.length} sample(s) left it, first at t=${later[0]?.t}ms`);
    }
  }
  return broken;
}

/**
 * Checks one recorded phase against its rules and the contract; throws with every broken rule and the
 * phase's record. With VERDICT_LOG set, appends the record to that file as well.
 */
export function expectPhase(recorder: VerdictRecorder, label: string, rules: PhaseRules, context = ''): VerdictSample[] {
  const samples = recorder.phase(label);
  const record = `${context}${label} (${symbols(samples)}):\n${formatSamples(samples)}`;
  if (process.env.VERDICT_LOG) {
    const errors = distinctErrors(samples).map((e) => `    error seen: ${e}`);
    appendFileSync(process.env.VERDICT_LOG, `${[record, ...errors].join('\n')}\n\n`);
  }
  const broken = samples.length === 0 ? ['no samples'] : check(samples, rules);
  if (broken.length > 0) throw new Error(`phase '${label}' broke ${broken.length} rule(s):\n- ${broken.join('\n- ')}\nrecorded:\n${record}`);
  return samples;
}

/** expectPhase for several phases: every phase is checked (and logged) before the first failure is thrown. */
export function expectPhases(recorder: VerdictRecorder, phases: readonly (readonly [string, PhaseRules])[], context = ''): void {
  const failures: string[] = [];
  for (const [label, rules] of phases) {
    try {
      expectPhase(recorder, label, rules, context);
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  if (failures.length > 0) throw new Error(failures.join('\n\n'));
}

/** The reasons that concern one member's own state (MEMBER_STALLED: it answers but applies nothing). */
export const MEMBER_CODES = ['MEMBER_UNREACHABLE', 'MEMBER_UNHEALTHY', 'MEMBER_STALLED'] as const;

/** Whether every reason of a sample is one of `codes` about `member` (a fault confined to one member). */
export function onlyAbout(s: VerdictSample, member: string, codes: readonly string[] = MEMBER_CODES): boolean {
  return s.reasons.length > 0 && s.reasons.every((r) => codes.some((c) => r === `${c}(${member})`));
}

/**
 * Whether a sample is degraded only because of `member`: MEMBER_CODES about it, and LEADER_DISAGREEMENT
 * when it still answers (a cut-off member that knows no leader, or an old one).
 */
export function confinedTo(s: VerdictSample, member: string): boolean {
  const own = s.reasons.filter((r) => r !== 'LEADER_DISAGREEMENT');
  return s.status === 'degraded' && own.length > 0 && own.every((r) => MEMBER_CODES.some((c) => r === `${c}(${member})`));
}
