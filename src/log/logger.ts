import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/config.ts';

/** Paths never written to the log, whatever a caller passes: credentials and key material. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'tls',
  '*.tls',
  'key',
  '*.key',
  'privateKey',
  '*.privateKey',
  'password',
  '*.password',
  'token',
  '*.token',
];

/** The service's JSON logger (pino), writing to stdout unless a destination is given (tests parse it). */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'etcd-probe' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** Standard error, written synchronously: for commands whose stdout carries their report. */
export function stderrDestination(): DestinationStream {
  return pino.destination({ dest: 2, sync: true });
}
