import { SETTINGS } from './settings.ts';

/** The --help text, generated from the settings table so that it cannot drift from it. */
export function usage(): string {
  const rows = SETTINGS.map((s) => {
    const fallback = s.fallback === null ? '' : ` (default ${s.fallback})`;
    return `  --${s.flag.padEnd(16)} ${s.env.padEnd(26)} ${s.help}${fallback}`;
  });
  return [
    'Usage: etcd-probe [flags]',
    '',
    'Serves /healthz/etcd, /members, /alarms and /metrics about an etcd cluster.',
    'Every flag can be set by its environment variable; a flag wins over the variable.',
    '',
    ...rows,
    '  -h, --help                                     show this help',
    '',
    'Exit codes: 0 after a clean shutdown, 78 on a configuration error, 1 when the service fails.',
    '',
  ].join('\n');
}
