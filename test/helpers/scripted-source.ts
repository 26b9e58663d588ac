import type { MemberSource } from '../../src/probe/member-source.ts';
import type { MemberClient } from '../../src/probe/member-client.ts';
import type { EndpointObservation } from '../../src/probe/observations.ts';

/** A member client that answers what it was given (a stand-in for etcd in HTTP-layer unit tests). */
export class ScriptedClient implements MemberClient {
  closed = false;
  private readonly o: EndpointObservation;
  constructor(o: EndpointObservation) {
    this.o = o;
  }
  async status() { return this.o.status; }
  async healthRead() { return this.o.health; }
  async memberList() { return this.o.memberList; }
  async alarmList() { return this.o.alarmList ?? { ok: true as const, value: [], ms: 1 }; }
  /** How many times its connections were released (it holds none: only counted). */
  releases = 0;
  async release() { this.releases++; }
  close() { this.closed = true; }
}

/** A member source whose clients answer the given observations; counts target lookups. */
export function scriptedSource(observations: readonly EndpointObservation[]): MemberSource & { rounds: number } {
  return {
    mode: 'static',
    rounds: 0,
    async targets() {
      this.rounds++;
      return observations.map((o) => o.target);
    },
    connect(target) {
      return new ScriptedClient(observations.find((o) => o.target.key === target.key) as EndpointObservation);
    },
    async close() {},
  };
}

/**
 * A member source whose answers can be changed between rounds (`set`), or made to throw as a bug in the
 * service would (`breakWith`): its clients look the current observations up on every call.
 */
export function switchableSource(initial: readonly EndpointObservation[]): MemberSource & { set(next: readonly EndpointObservation[]): void; breakWith(error: Error | null): void } {
  let current = initial;
  let broken: Error | null = null;
  const find = (key: string) => current.find((o) => o.target.key === key) as EndpointObservation;
  return {
    mode: 'static',
    set(next) {
      current = next;
    },
    breakWith(error) {
      broken = error;
    },
    async targets() {
      if (broken) throw broken;
      return current.map((o) => o.target);
    },
    connect(target) {
      return {
        status: async () => find(target.key).status,
        healthRead: async () => find(target.key).health,
        memberList: async () => find(target.key).memberList,
        alarmList: async () => find(target.key).alarmList ?? { ok: true as const, value: [], ms: 1 },
        release: async () => {},
        close() {},
      };
    },
    async close() {},
  };
}
