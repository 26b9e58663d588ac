import { createSecureContext, type SecureContext } from 'node:tls';
import type { TlsMaterial } from './tls-files.ts';

/** One context per TLS material object: the members of a cluster share theirs, and new material (a reload, a rotation) gets a new one. */
const contexts = new WeakMap<TlsMaterial, SecureContext>();

/**
 * The TLS context for connections made with this material (its CA to verify the server by, else the
 * system's roots; its client certificate and key when it has them), made once: parsing the CA,
 * certificate and key is most of what making a context costs.
 */
export function secureContextOf(material: TlsMaterial): SecureContext {
  let context = contexts.get(material);
  if (!context) {
    context = createSecureContext({
      ...(material.ca ? { ca: material.ca } : {}),
      ...(material.cert && material.key ? { cert: material.cert, key: material.key } : {}),
    });
    contexts.set(material, context);
  }
  return context;
}
