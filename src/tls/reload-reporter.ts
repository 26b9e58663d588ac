import type { Logger } from 'pino';
import type { CredentialMetrics, CredentialSet } from '../metrics/credential-metrics.ts';
import type { ReloadEvents, ReloadFailure } from './tls-file-reloader.ts';
import { certificateWarnings, leafCertificate, type TlsMaterial } from './tls-files.ts';

const WHAT: Record<CredentialSet, string> = {
  'etcd-client': 'the etcd client certificate',
  listener: "the listener's certificate",
  'auth-token': 'the bearer token',
};

/** Sets the expiry gauge of the certificate in use. */
export function recordExpiry(metrics: CredentialMetrics, credentials: CredentialSet, material: TlsMaterial | null): void {
  const leaf = leafCertificate(material?.cert ?? null);
  if (leaf) metrics.certificateExpires(credentials, new Date(leaf.validTo));
}

/** Logs and counts what a reloader reports: one error line naming the file and the problem, never the contents. */
export function reloadReporter(credentials: CredentialSet, logger: Logger, metrics: CredentialMetrics, now: () => number): ReloadEvents {
  return {
    reloaded(material: TlsMaterial): void {
      metrics.reloaded(credentials);
      recordExpiry(metrics, credentials, material);
      const notAfter = leafCertificate(material.cert)?.validTo;
      logger.info({ credentials, ...(notAfter ? { notAfter: new Date(notAfter).toISOString() } : {}) }, `reloaded ${WHAT[credentials]}`);
      for (const warning of certificateWarnings(material, new Date(now()), WHAT[credentials])) logger.warn({ credentials }, warning);
    },
    failed(failure: ReloadFailure): void {
      metrics.reloadFailed(failure.file);
      // A token file that went bad fails closed (an emptied Secret revokes); certificates keep the last good pair.
      const consequence = credentials === 'auth-token' ? 'no bearer token is accepted until the file is fixed' : 'keeping the previous one';
      logger.error(
        { credentials, file: failure.file, setting: failure.setting, problem: failure.problem },
        `cannot reload ${WHAT[credentials]}: ${failure.setting}: ${failure.problem}; ${consequence}`,
      );
    },
  };
}
