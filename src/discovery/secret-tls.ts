import { createPrivateKey, X509Certificate } from 'node:crypto';
import { KubeError } from '../kube/kube-error.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/** Takes PEM entries from a Secret's data, checking each parses; `what` names the secret in errors. */
export function pemEntry(data: ReadonlyMap<string, Buffer>, key: string, what: string, kind: 'cert' | 'key'): Buffer {
  const value = data.get(key);
  if (!value || value.length === 0) throw new KubeError('invalid-secret', `${what}: key ${key} is missing or empty`);
  try {
    if (kind === 'cert') new X509Certificate(value);
    else createPrivateKey(value);
  } catch {
    // OpenSSL's message is not shown: a parser may quote what it could not read, and this is a Secret.
    throw new KubeError('invalid-secret', `${what}: ${key} is not a PEM ${kind === 'cert' ? 'certificate' : 'private key'}`);
  }
  return value;
}

/** Reads etcd client TLS material from a kubernetes.io/tls-style Secret (ca.crt, tls.crt, tls.key). */
export function tlsFromSecret(data: ReadonlyMap<string, Buffer>, what: string): TlsMaterial {
  const ca = pemEntry(data, 'ca.crt', what, 'cert');
  const cert = pemEntry(data, 'tls.crt', what, 'cert');
  const key = pemEntry(data, 'tls.key', what, 'key');
  if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) {
    throw new KubeError('invalid-secret', `${what}: tls.key does not belong to tls.crt`);
  }
  return { ca, cert, key };
}
