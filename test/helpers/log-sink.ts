import { Writable } from 'node:stream';

/** One parsed pino line. */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

/** A pino destination that keeps every line, parsed, so tests assert on log fields (logs are data). */
export class LogSink extends Writable {
  readonly lines: LogLine[] = [];
  /** Every byte written, to assert that a secret never appears anywhere. */
  raw = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const text = chunk.toString('utf8');
    this.raw += text;
    for (const line of text.split('\n')) if (line.trim()) this.lines.push(JSON.parse(line) as LogLine);
    callback();
  }

  /** Lines at a level. */
  at(level: string): LogLine[] {
    return this.lines.filter((l) => l.level === level);
  }
}
