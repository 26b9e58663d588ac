import { SETTINGS } from '../config/settings.ts';
import type { HelpTopic } from './command-line.ts';

// check probes one cluster once and serves nothing: how to reach and judge it, and its log, are all that
// applies (issue 26: its help listed the listener's, the token's and the fleet's flags too).
const CHECK_SETTINGS = SETTINGS.filter((s) => s.scope === 'reach' || s.scope === 'judge' || s.key === 'logLevel');

function settingRows(topic: HelpTopic): string[] {
  return (topic === 'check' ? CHECK_SETTINGS : SETTINGS).map((s) => {
    const fallback = s.fallback === null ? '' : ` (default ${s.fallback})`;
    return `  --${s.flag.padEnd(16)} ${s.env.padEnd(26)} [${s.scope}] ${s.help}${fallback}`;
  });
}

const SETTINGS_INTRO = [
  'Every flag can be set by its environment variable; a flag wins over the variable. Each says its scope:',
  '[reach] how a cluster is reached (each cluster of a clusters file names its own), [judge] how it is',
  'probed and judged (a clusters file may override it per cluster), [service] the process, [fleet] fleet mode.',
];
const CHECK_NOTE = 'check uses the [reach] and [judge] settings and the log level; etcd-probe serve --help lists the rest.';
const HELP_ROW = `${'  -h, --help'.padEnd(2 + 2 + 16 + 1 + 26 + 1)}show this help`;
const VERSION_ROW = `${'  -v, --version'.padEnd(2 + 2 + 16 + 1 + 26 + 1)}print the version`;

const TOPICS: Readonly<Record<HelpTopic, { readonly head: readonly string[]; readonly exits: readonly string[] }>> = {
  overview: {
    head: [
      'Usage: etcd-probe [serve|check] [flags]',
      '',
      'Commands:',
      '  serve   (the default) serve /healthz/etcd, /members, /alarms and /metrics about an etcd cluster',
      '  check   probe the cluster once, print a table of the members and the verdict, exit by the verdict',
      '',
      'etcd-probe serve --help and etcd-probe check --help describe each command.',
    ],
    exits: [
      'Exit codes: serve: 0 after a clean shutdown, 1 when the service fails;',
      'check: 0 healthy, 1 degraded, 2 unhealthy, 70 when the probe itself fails;',
      'both: 78 on a configuration error (a bad flag, variable or command).',
    ],
  },
  serve: {
    head: ['Usage: etcd-probe [serve] [flags]', '', 'Serves /healthz/etcd, /members, /alarms and /metrics about an etcd cluster.'],
    exits: ['Exit codes: 0 after a clean shutdown, 78 on a configuration error, 1 when the service fails.'],
  },
  check: {
    head: [
      'Usage: etcd-probe check [-o table|json] [--can-stop MEMBER] [flags]',
      '',
      'Probes the etcd cluster once, with the same settings as serve, and prints the members as a table',
      '(like etcdctl endpoint status) followed by the verdict, its reasons and hints; logs go to stderr.',
      'One round has no history: what recent rounds tell (FREQUENT_LEADER_CHANGES, MEMBER_FLAPPING,',
      'MEMBER_STALLED, DB_QUOTA_EXHAUSTION_SOON, DATA_DIVERGED) only the service says, so check can be',
      'healthy where the service is degraded by its history (ask it: GET /healthz/etcd?verbose, /history).',
      '',
      '  -o, --output FORMAT                        table (default) or json: the /healthz/etcd document',
      '      --can-stop MEMBER                      whether MEMBER (name or hex ID) may stop now without losing quorum',
    ],
    exits: [
      'Exit codes: 0 healthy, 1 degraded, 2 unhealthy, 70 when the probe itself fails,',
      '78 on a configuration error. (ETCD_PROBE_POLICY only sets the JSON document\'s policy field.)',
      'With --can-stop: 0 safe to stop, 1 not safe, 2 the cluster is unhealthy, 78 unknown member.',
    ],
  },
};

/** The --help text of a command (or the overview), its flag rows generated from the settings table. */
export function usage(topic: HelpTopic = 'overview'): string {
  const { head, exits } = TOPICS[topic];
  const intro = topic === 'check' ? [...SETTINGS_INTRO, CHECK_NOTE] : SETTINGS_INTRO;
  return [...head, '', ...intro, '', ...settingRows(topic), HELP_ROW, VERSION_ROW, '', ...exits, ''].join('\n');
}
