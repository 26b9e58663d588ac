import type { MemberSource } from '../probe/member-source.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/** A member source as discovery builds it: the probe's MemberSource, and the credentials it obtained itself. */
export interface DiscoveredSource extends MemberSource {
  /**
   * The etcd client credentials in use when the source obtains them itself (a Secret, a minted
   * certificate), for the expiry metric; absent when they come from files, whose reloader reports them.
   */
  credentials?(): TlsMaterial | null;
}
