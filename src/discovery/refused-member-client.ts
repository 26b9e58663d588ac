import type { MemberClient } from '../probe/member-client.ts';
import type { Outcome, ProbeError } from '../probe/outcome.ts';

/** A member that is not dialled (its endpoint was refused): every call answers the refusal, at once. */
export class RefusedMemberClient implements MemberClient {
  readonly #error: ProbeError;

  constructor(error: ProbeError) {
    this.#error = error;
  }

  #refused(): Promise<Outcome<never>> {
    return Promise.resolve({ ok: false, error: this.#error, ms: 0 });
  }

  status() {
    return this.#refused();
  }

  healthRead() {
    return this.#refused();
  }

  memberList() {
    return this.#refused();
  }

  alarmList() {
    return this.#refused();
  }

  hashKv() {
    return this.#refused();
  }

  // It holds no connection.
  async release(): Promise<void> {}

  close(): void {}
}
