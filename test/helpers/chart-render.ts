import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';

/** The chart's directory. */
export const CHART_DIR = fileURLToPath(new URL('../../chart/', import.meta.url));

const RENDERER_DIR = fileURLToPath(new URL('../../tools/chart-render/', import.meta.url));

/** What to render: helm template's release name, namespace, values files and --set pairs. */
export interface RenderOptions {
  /** Another chart than chart/ (the renderer's own fixture). */
  readonly chartDir?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly valuesFiles?: readonly string[];
  /** Values given inline; written to a file and passed last of the -f files. */
  readonly values?: Readonly<Record<string, unknown>>;
  readonly set?: Readonly<Record<string, string | number | boolean>>;
  /** Render without checking values.schema.json first (helm's --skip-schema-validation). */
  readonly skipSchemaValidation?: boolean;
}

/** One rendered Kubernetes object, loosely typed; tests narrow it. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly [field: string]: unknown;
}

/** The tool that renders: a real helm when one is on PATH, else the Go approximation built here. */
export interface Renderer {
  readonly kind: 'helm' | 'chart-render';
  readonly path: string;
}

function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, command);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return null;
}

let cached: Renderer | null = null;

/**
 * Finds helm, or builds tools/chart-render with Debian's Go toolchain and sprig (GOPATH mode, offline).
 * Throws, so that the tests fail, when neither is available: a chart that was never rendered is not tested.
 */
export function renderer(): Renderer {
  if (cached) return cached;
  const helm = onPath('helm');
  if (helm) return (cached = { kind: 'helm', path: helm });
  const go = onPath('go');
  if (!go) {
    throw new Error(
      'neither helm nor go is on PATH: install golang-go, golang-github-masterminds-sprig-dev, ' +
        'golang-k8s-sigs-yaml-dev and golang-github-xeipuuv-gojsonschema-dev from Debian, as .ci/run does, ' +
        'to build tools/chart-render',
    );
  }
  const source = readFileSync(join(RENDERER_DIR, 'main.go'));
  const goVersion = execFileSync(go, ['version'], { encoding: 'utf8' });
  const digest = createHash('sha256').update(source).update(goVersion).digest('hex').slice(0, 16);
  const cacheDir = join(tmpdir(), 'etcd-probe-chart-render');
  const binary = join(cacheDir, `chart-render-${digest}`);
  if (!existsSync(binary)) buildOnce(go, binary);
  return (cached = { kind: 'chart-render', path: binary });
}

/**
 * Builds the renderer unless another vitest worker is doing it: the first to create the lock directory
 * builds, the others wait for the binary (or for the lock to go, when that build failed, and then try).
 */
function buildOnce(go: string, binary: string): void {
  const cacheDir = dirname(binary);
  mkdirSync(cacheDir, { recursive: true });
  const lock = `${binary}.lock`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (existsSync(binary)) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than any build is left by a killed run: take it over.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`waited 300 s for another worker to build ${binary} (stale ${lock}?)`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    const partial = `${binary}.${process.pid}.tmp`;
    const build = spawnSync(go, ['build', '-o', partial, '.'], {
      cwd: RENDERER_DIR,
      encoding: 'utf8',
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH: '/usr/share/gocode',
        GOCACHE: join(cacheDir, 'gocache'),
        GOFLAGS: '',
        CGO_ENABLED: '0',
      },
    });
    if (build.status !== 0) {
      throw new Error(`building tools/chart-render failed (are the Debian packages .ci/run installs there?):\n${build.stderr}`);
    }
    renameSync(partial, binary);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs the renderer with the options' namespace, values files and --set pairs after `args`. */
function run(path: string, args: string[], options: RenderOptions): string {
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
    const result = spawnSync(path, all, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`render failed: ${result.stderr.trim()}`);
    return result.stdout;
  } finally {
    if (inlineDir) rmSync(inlineDir, { recursive: true, force: true });
  }
}

/** The manifests, as text, that helm template would print. */
export function renderText(options: RenderOptions = {}): string {
  const r = renderer();
  const name = options.name ?? 'probe';
  if (r.kind === 'helm') return run(r.path, ['template', name, options.chartDir ?? CHART_DIR], options);
  return run(r.path, [options.chartDir ?? CHART_DIR, '--name', name], options);
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

/** The rendered NOTES.txt (helm: the NOTES of a client-only dry-run install). */
export function renderNotes(options: RenderOptions = {}): string {
  const r = renderer();
  const name = options.name ?? 'probe';
  if (r.kind === 'helm') {
    const out = run(r.path, ['install', name, options.chartDir ?? CHART_DIR, '--dry-run=client'], options);
    const at = out.indexOf('NOTES:\n');
    if (at < 0) throw new Error('helm install --dry-run printed no NOTES');
    return out.slice(at + 'NOTES:\n'.length);
  }
  return run(r.path, [options.chartDir ?? CHART_DIR, '--name', name, '--notes'], options);
}

/** The path of an example values file under chart/ci/. */
export function ciValues(file: string): string {
  return join(CHART_DIR, 'ci', file);
}
