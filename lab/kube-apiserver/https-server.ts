import { createServer, type Server as HttpsServer } from 'node:https';
import type { PemPair } from '#lab/certs/pki.ts';

// The TLS side of the stand-in: an HTTPS server that never listens itself (listener.ts hands it TCP
// connections), asks for a client certificate as kube-apiserver does, and counts its handshakes so a test
// can tell a client that reuses TLS sessions from one that shakes hands on every request.

/** TLS handshakes so far: full ones, and those that resumed an earlier session. */
export interface TlsSessionCount {
  full: number;
  resumed: number;
}

/** An HTTPS server serving `serving`, accepting client certificates of clientCas; counts into sessions. */
export function apiHttpsServer(serving: PemPair, clientCas: readonly string[], sessions: TlsSessionCount): HttpsServer {
  // The API server requests (does not require) a client certificate; one it cannot verify means 401.
  const https = createServer({ key: serving.key, cert: serving.cert, ca: [...clientCas], requestCert: true, rejectUnauthorized: false });
  https.on('secureConnection', (socket) => {
    if (socket.isSessionReused()) sessions.resumed++;
    else sessions.full++;
  });
  https.on('tlsClientError', () => {});
  https.on('clientError', (_error, socket) => socket.destroy());
  return https;
}
