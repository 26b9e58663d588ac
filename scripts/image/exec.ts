import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

/** How to run one command. */
export interface ExecOptions {
  /** Appends the command's output here instead of keeping it (for long, chatty steps). */
  readonly logFile?: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Kills the command after this long; every step here has a bound. */
  readonly timeoutMs?: number;
  /** Exit codes that count as success besides 0. */
  readonly okCodes?: readonly number[];
}

/** What a finished command printed, and how it ended. */
export interface ExecResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

const TAIL_LINES = 40;

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
}

/** Runs a command without a shell; rejects with the command, its exit status and the tail of its output. */
export function exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const take = (chunk: Buffer, into: 'out' | 'err') => {
      if (options.logFile) appendFileSync(options.logFile, chunk);
      // The log file holds everything; memory keeps enough to report a failure.
      const text = chunk.toString();
      if (into === 'out') stdout = options.logFile ? (stdout + text).slice(-20_000) : stdout + text;
      else stderr = options.logFile ? (stderr + text).slice(-20_000) : stderr + text;
    };
    child.stdout.on('data', (c: Buffer) => take(c, 'out'));
    child.stderr.on('data', (c: Buffer) => take(c, 'err'));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const status = code ?? -1;
      if (status === 0 || options.okCodes?.includes(status)) {
        resolve({ stdout, stderr, code: status });
        return;
      }
      const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms` : signal ? `killed by ${signal}` : `exit ${status}`;
      const where = options.logFile ? ` (full output in ${options.logFile})` : '';
      reject(new Error(`${command} ${args.join(' ')}: ${why}${where}\n${tail(`${stdout}\n${stderr}`)}`));
    });
  });
}
