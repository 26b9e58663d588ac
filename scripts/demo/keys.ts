// The demo's keyboard: single keys, read raw from a terminal (no Enter needed), or the same characters
// from a pipe (`printf '3s' | npm run demo`, and the demo's test), where whitespace is skipped.

/** Ctrl-C and Ctrl-D as a raw terminal delivers them (raw mode turns off the terminal's own SIGINT). */
export const CTRL_C = '\u0003';
export const CTRL_D = '\u0004';

/** Stops reading and gives the terminal back its normal mode. Safe to call twice. */
export type StopReading = () => void;

/** Standard input, or anything like it: a terminal has isTTY and setRawMode. */
export type KeyInput = NodeJS.ReadableStream & { readonly isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** Calls onKey for every key typed (or character piped) on input; the end of a pipe is not a key. */
export function readKeys(input: KeyInput, onKey: (key: string) => void): StopReading {
  const raw = input.isTTY === true && typeof input.setRawMode === 'function';
  if (raw) input.setRawMode!(true);
  input.setEncoding('utf8');
  const onData = (chunk: string) => {
    for (const key of chunk) if (!/\s/.test(key)) onKey(key);
  };
  input.on('data', onData);
  input.resume();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    input.off('data', onData);
    if (raw) input.setRawMode!(false);
    input.pause();
  };
}
