import { request } from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';

/** What an HTTPS client saw: the answer, and the certificate the server presented. */
export interface HttpsGot {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly contentType: string;
  readonly body: any;
  readonly peer: PeerCertificate;
}

/** TLS settings of a test client: the CA it trusts, and optionally its own certificate. */
export interface HttpsClientOptions {
  readonly ca: string | Buffer | (string | Buffer)[];
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly headers?: Record<string, string>;
}

/** GETs a URL over a new TLS connection (no agent, so every call does a full handshake), like curl --cacert. */
export function httpsGet(url: string, options: HttpsClientOptions): Promise<HttpsGot> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: options.ca, cert: options.cert, key: options.key, headers: options.headers, agent: false }, (res) => {
      const peer = (res.socket as TLSSocket).getPeerCertificate();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const contentType = String(res.headers['content-type'] ?? '');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, contentType, body: contentType.startsWith('application/json') ? JSON.parse(text) : text, peer });
      });
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
