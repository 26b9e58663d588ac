/** The service's own state, separate from etcd's health: ready until shutdown begins. */
export class Lifecycle {
  #ready = true;

  /** Whether the service accepts traffic (false once shutdown has begun). */
  get ready(): boolean {
    return this.#ready;
  }

  /** Marks the start of shutdown: /readyz fails from now on. */
  beginShutdown(): void {
    this.#ready = false;
  }
}
