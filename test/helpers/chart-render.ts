import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { KUBE_TOOL_RELEASES, kubeTools } from '#lab/kube-tools/kube-tools.ts';

// The chart rendered by real helm: every render runs helm 3 and helm 4 (lab/kube-tools/kube-tools.ts
// fetches them) and fails unless both print the same manifests, so each assertion made on the result
// holds for both.

/** The chart's directory. */
export const CHART_DIR = fileURLToPath(new URL('../../chart/', import.meta.url));

/** What to render: helm template's release name, namespace, values files and --set pairs. */
export interface RenderOptions {
  readonly name?: string;
  readonly namespace?: string;
  readonly valuesFiles?: readonly string[];
  /** Values given inline; written to a file and passed last of the -f files. */
  readonly values?: Readonly<Record<string, unknown>>;
  readonly set?: Readonly<Record<string, string | number | boolean>>;
  /** Render without checking values.schema.json first (helm's --skip-schema-validation). */
  readonly skipSchemaValidation?: boolean;
  /** The Kubernetes version the chart sees (helm's --kube-version); each helm's own default otherwise. */
  readonly kubeVersion?: string;
}

/** One rendered Kubernetes object, loosely typed; tests narrow it. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly [field: string]: unknown;
}

/** A helm binary and its version. */
export interface Helm {
  readonly version: string;
  readonly path: string;
}

/** What one helm run printed. */
export interface HelmRun {
  readonly helm: string;
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** helm 3 and helm 4, fetched on first use. */
export function helms(): Helm[] {
  return KUBE_TOOL_RELEASES.map((r) => ({ version: r.helmVersion, path: kubeTools(r.id).helm }));
}

/** Runs `args` plus the options' namespace, values files and --set pairs with each helm. */
function runEach(args: readonly string[], options: RenderOptions, which: Helm[] = helms()): HelmRun[] {
  const all = [...args, '--namespace', options.namespace ?? 'probes'];
  for (const file of options.valuesFiles ?? []) all.push('-f', file);
  const inlineDir = options.values ? mkdtempSync(join(tmpdir(), 'etcd-probe-chart-values-')) : null;
  try {
    if (inlineDir) {
      const file = join(inlineDir, 'values.yaml');
      writeFileSync(file, stringify(options.values));
      all.push('-f', file);
    }
    for (const [key, value] of Object.entries(options.set ?? {})) all.push('--set', `${key}=${String(value)}`);
    if (options.skipSchemaValidation) all.push('--skip-schema-validation');
    if (options.kubeVersion) all.push('--kube-version', options.kubeVersion);
    // A private HOME: no user repositories, plugins or registry logins change what helm does. One Go
    // thread and no garbage collection: a render lives ~50 ms, and on two shared cores this saves a third.
    const home = mkdtempSync(join(tmpdir(), 'etcd-probe-helm-home-'));
    const env = { PATH: process.env.PATH ?? '', HOME: home, GOMAXPROCS: '1', GOGC: 'off' };
    try {
      return which.map((helm) => {
        const result = spawnSync(helm.path, all, { encoding: 'utf8', env, timeout: 60_000 });
        return { helm: helm.version, status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr || (result.error?.message ?? '') };
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  } finally {
    if (inlineDir) rmSync(inlineDir, { recursive: true, force: true });
  }
}

function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  const at = left.findIndex((line, i) => line !== right[i]);
  const line = at < 0 ? left.length : at;
  return `line ${line + 1}: ${JSON.stringify(left[line] ?? '<end>')} vs ${JSON.stringify(right[line] ?? '<end>')}`;
}

// The generated token is random in every render without a cluster (its Secret's lookup finds nothing):
// the one difference allowed between helm 3's and helm 4's output.
const GENERATED_TOKEN = /(# Source: etcd-probe\/templates\/token-secret\.yaml\n[\s\S]*?\ndata:\n {2}[^:\n]+: )"[A-Za-z0-9+/=]*"/;

/** The manifests `helm template` prints (helm 3's); throws when a helm fails or when helm 3 and helm 4 disagree. */
export function renderText(options: RenderOptions = {}): string {
  const runs = runEach(['template', options.name ?? 'probe', CHART_DIR], options);
  const failed = runs.filter((r) => r.status !== 0);
  if (failed.length > 0) throw new Error(`render failed: ${failed.map((r) => `helm ${r.helm}: ${r.stderr.trim()}`).join('\n')}`);
  const [first, ...rest] = runs as [HelmRun, ...HelmRun[]];
  const comparable = (text: string) => text.replace(GENERATED_TOKEN, '$1"<generated>"');
  for (const other of rest) {
    if (comparable(other.stdout) !== comparable(first.stdout)) {
      throw new Error(`helm ${first.helm} and helm ${other.helm} render differently, ${firstDifference(comparable(first.stdout), comparable(other.stdout))}`);
    }
  }
  return first.stdout;
}

/** The rendered objects, each YAML document parsed; a document that does not parse fails the render. */
export function render(options: RenderOptions = {}): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(renderText(options))) {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) objects.push(value as K8sObject);
  }
  return objects;
}

/** What each helm says when `helm template` refuses the values; throws when one of them renders. */
export function renderFailures(options: RenderOptions = {}): { helm: string; message: string }[] {
  const runs = runEach(['template', options.name ?? 'probe', CHART_DIR], options);
  const rendered = runs.filter((r) => r.status === 0);
  if (rendered.length > 0) throw new Error(`expected a refusal, but helm ${rendered.map((r) => r.helm).join(' and ')} rendered`);
  return runs.map((r) => ({ helm: r.helm, message: r.stderr.trim() }));
}

/**
 * The rendered NOTES.txt, from helm 4's client-only dry-run install. helm 3 cannot print NOTES without a
 * cluster (its `install --dry-run=client` still calls the API server; `template` leaves NOTES out).
 */
export function renderNotes(options: RenderOptions = {}): string {
  const helm4 = helms().filter((h) => h.version.startsWith('v4.'));
  const [run] = runEach(['install', options.name ?? 'probe', CHART_DIR, '--dry-run=client'], options, helm4);
  if (!run || run.status !== 0) throw new Error(`helm install --dry-run=client failed: ${run?.stderr.trim()}`);
  const at = run.stdout.indexOf('NOTES:\n');
  if (at < 0) throw new Error('helm install --dry-run printed no NOTES');
  return run.stdout.slice(at + 'NOTES:\n'.length);
}

/** `helm lint --strict` of the chart with each helm. */
export function lint(options: RenderOptions = {}): HelmRun[] {
  return runEach(['lint', '--strict', CHART_DIR], options);
}

/** The path of an example values file under chart/ci/. */
export function ciValues(file: string): string {
  return join(CHART_DIR, 'ci', file);
}
