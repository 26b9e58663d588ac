import type { IncomingMessage } from 'node:http';
import { METADATA_ONLY } from './api-handler.ts';

// The stand-in's record of what it was asked and what it answered (FakeKubeApiServer.requests), so a
// test can assert on what a client read rather than on what the client says it did.

/** One request the stand-in received, for asserting what a client read. */
export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** The authenticated user, or null. */
  readonly user: string | null;
  /** The HTTP status answered; 0 while unanswered ('hang-upgrade'). */
  readonly status: number;
  readonly upgrade: boolean;
  /** Asked for metadata only (Accept: ...;as=PartialObjectMetadata): no data was sent. */
  readonly metadataOnly: boolean;
}

/** The record of a request to url (its full path, a workload cluster's prefix included). */
export function requestRecord(req: IncomingMessage, url: URL, user: string | null, status: number, upgrade: boolean): RequestRecord {
  const metadataOnly = METADATA_ONLY.test(String(req.headers.accept ?? ''));
  return { method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, ''), user, status, upgrade, metadataOnly };
}
