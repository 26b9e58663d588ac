import { writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import tls from 'node:tls';

// A preload that counts the TLS client handshakes of the process it is loaded into, by caller and by
// whether a session was offered and resumed, and writes them to /tmp/tls-handshakes-<pid>.json every 5 s.
// How the fleet's handshakes were counted (docs/benchmarks/2026-12-03-fleet-scale.md), e.g. for the service and the stand-in alike:
//   NODE_OPTIONS="--import ./scripts/bench/tls-handshakes.ts" node --experimental-strip-types scripts/bench/fleet.ts --refresh=10s --intervals=6 --cold-size=0 20
// Read two snapshots some seconds apart: their difference is the steady state. A measuring aid, not a test.

const counts = new Map<string, number>();
const connect = tls.connect;

function caller(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(3, 6);
  return frames.map((line) => line.trim().replace(/^at /, '').replace(/.*[/(]([^/()]+:\d+):\d+\)?$/, '$1')).join(' < ');
}

tls.connect = function countedConnect(this: unknown, ...args: unknown[]) {
  const options = (args.find((a) => a !== null && typeof a === 'object') ?? {}) as { session?: unknown };
  const where = caller();
  const socket = (connect as (...a: unknown[]) => tls.TLSSocket).apply(this, args);
  socket.once('secureConnect', () => {
    const key = `${where} | session offered: ${options.session !== undefined && options.session !== null}, resumed: ${socket.isSessionReused()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return socket;
} as typeof tls.connect;
// Named imports of node:tls (import { connect } from 'node:tls') see the counting connect too.
syncBuiltinESMExports();

setInterval(() => writeFileSync(`/tmp/tls-handshakes-${process.pid}.json`, `${JSON.stringify(Object.fromEntries(counts), null, 1)}\n`), 5000).unref();
