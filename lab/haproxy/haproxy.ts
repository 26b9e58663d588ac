import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Lab: a real HAProxy (Debian's haproxy package, 2.6 on Debian 12) started in the foreground from
// a configuration file, with an admin socket through which the test reads what HAProxy thinks of each
// server (`show stat`). The configuration is docs/examples/haproxy.cfg with this test's addresses put in.

/** What HAProxy reports of a server: UP, DOWN, or a transition (`UP 1/2`, `DOWN 1/2`), `MAINT`, `no check`. */
export type ServerStatus = string;

/** The example configuration shipped to users, read once. */
export const EXAMPLE_CONFIG = readFileSync(new URL('../../docs/examples/haproxy.cfg', import.meta.url), 'utf8');

/** The addresses to put into the example configuration. */
export interface HaproxyPlaces {
  /** Where etcd clients connect (the frontend), `127.0.0.1:23790`. */
  readonly frontend: string;
  /** etcd-probe's address, `127.0.0.1:8080`. */
  readonly probe: string;
  /** One server per member: its name (as etcd knows it) and client address `ip:port`. */
  readonly servers: readonly { readonly name: string; readonly address: string }[];
}

/** The example configuration with the test's addresses, its admin socket added, and nothing else changed. */
export function configFor(places: HaproxyPlaces, socket: string): string {
  const servers = places.servers.map((s) => `    server ${s.name} ${s.address}`).join('\n');
  const replaced = EXAMPLE_CONFIG.replace(/^(\s*bind )\S+/m, `$1${places.frontend}`)
    .replace(/check addr \S+ port \d+/, () => {
      const [host, port] = places.probe.split(':');
      return `check addr ${host} port ${port}`;
    })
    .replace(/^ {4}server .*(\n {4}server .*)*$/m, servers);
  if (replaced.includes('server etcd-')) throw new Error('docs/examples/haproxy.cfg: the server lines were not replaced');
  return replaced.replace(/^global\n/m, `global\n    stats socket ${socket} mode 600 level admin\n`);
}

/** A running HAProxy; stop() ends it and removes its folder. */
export class Haproxy {
  readonly #child: ChildProcess;
  readonly #dir: string;
  readonly #socket: string;
  #output = '';

  private constructor(child: ChildProcess, dir: string, socket: string) {
    this.#child = child;
    this.#dir = dir;
    this.#socket = socket;
    child.stdout?.on('data', (d: Buffer) => (this.#output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.#output += d.toString()));
  }

  /** Checks the configuration (`haproxy -c`), then starts HAProxy in the foreground and waits for its socket. */
  static async start(places: HaproxyPlaces): Promise<Haproxy> {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-haproxy-'));
    const socket = join(dir, 'admin.sock');
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, configFor(places, socket));
    const check = spawnSync('haproxy', ['-c', '-q', '-f', file], { encoding: 'utf8' });
    if (check.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`haproxy -c refused the configuration: ${check.stderr || check.stdout || check.error?.message}`);
    }
    const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const haproxy = new Haproxy(child, dir, socket);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await haproxy.command('show info');
        return haproxy;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline) {
          await haproxy.stop();
          throw new Error(`haproxy did not start: ${(error as Error).message}\n${haproxy.#output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Sends one command on the admin socket and returns the answer. */
  command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.#socket);
      let answer = '';
      socket.setTimeout(2000, () => socket.destroy(new Error(`no answer to '${line}' within 2 s`)));
      socket.on('connect', () => socket.write(`${line}\n`));
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(answer));
    });
  }

  /** What HAProxy thinks of each server of `backend` now, by server name. */
  async servers(backend: string): Promise<Record<string, ServerStatus>> {
    const csv = await this.command('show stat');
    const lines = csv.split('\n').filter((l) => l !== '');
    const header = (lines[0] ?? '').replace(/^# /, '').split(',');
    const [px, sv, st] = ['pxname', 'svname', 'status'].map((c) => header.indexOf(c));
    const result: Record<string, ServerStatus> = {};
    for (const row of lines.slice(1).map((l) => l.split(','))) {
      if (row[px as number] !== backend) continue;
      const name = row[sv as number] ?? '';
      if (name !== 'BACKEND' && name !== 'FRONTEND') result[name] = row[st as number] ?? '';
    }
    return result;
  }

  /** What HAProxy printed (its warnings and the health-check transitions it logs). */
  get output(): string {
    return this.#output;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((resolve) => this.#child.once('exit', resolve));
      this.#child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
