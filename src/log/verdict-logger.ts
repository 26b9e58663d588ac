import type { Logger } from 'pino';
import { shortName } from '../probe/reason.ts';
import type { Snapshot } from '../probe/snapshot.ts';

function summary(snapshot: Snapshot) {
  return snapshot.verdict.reasons.map((r) => ({ code: r.code, severity: r.severity, member: r.member ? shortName(r.member) : undefined, message: r.message }));
}

/**
 * Logs what a poller would want to know without flooding: a change of verdict at warn with its reasons
 * (the first verdict at info when healthy), a change of reasons alone at info, member errors at debug.
 */
export function createVerdictLogger(log: Logger): (snapshot: Snapshot) => void {
  let lastStatus: string | null = null;
  let lastReasons = '';
  return (snapshot) => {
    const { status, reasons } = snapshot.verdict;
    const reasonKey = reasons.map((r) => `${r.code}/${r.member?.id ?? r.endpoint ?? ''}`).join(',');
    if (status !== lastStatus) {
      const level = lastStatus === null && status === 'healthy' ? 'info' : 'warn';
      log[level]({ from: lastStatus, to: status, reasons: summary(snapshot) }, `etcd verdict ${lastStatus ?? 'first'} -> ${status}`);
    } else if (reasonKey !== lastReasons) {
      log.info({ status, reasons: summary(snapshot) }, `etcd verdict still ${status}, reasons changed`);
    }
    lastStatus = status;
    lastReasons = reasonKey;
    for (const m of snapshot.view.members) {
      if (m.error) log.debug({ member: shortName(m), endpoint: m.endpoint, error: m.error }, 'member error');
    }
  };
}
