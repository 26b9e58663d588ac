import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  backEdges,
  cycles,
  folderEdges,
  importEdges,
  importSpecifiers,
  repoImports,
  sourceFiles,
  unlayeredFolders,
  wallBreaches,
  type ImportEdge,
  type Layers,
  type RepoImport,
} from './helpers/import-graph.ts';

// The layers of src/, from the bottom up, as docs/architecture.md draws them. A folder imports only
// folders of lower layers; the folders of one layer do not import each other. `app` is src/app.ts,
// `main` is src/main.ts.
const LAYERS: Layers = [
  ['config', 'probe'],
  ['log', 'metrics'],
  ['tls'],
  ['auth', 'etcd', 'kube'],
  ['discovery'],
  ['core'],
  ['cluster'],
  ['fleet'],
  ['http'],
  ['app', 'fleet-app'],
  ['cli'],
  ['main'],
];

const SRC = new URL('../src', import.meta.url).pathname;

const edge = (from: string, to: string): ImportEdge => ({ from, to });

describe('the import graph of src/', () => {
  const edges = importEdges(SRC);

  it('finds the imports it checks (type-only, multi-line and dynamic ones too)', () => {
    expect(edges).toContainEqual(edge('main.ts', 'cli/serve.ts'));
    expect(edges).toContainEqual(edge('app.ts', 'http/route-deps.ts'));
    expect(edges.length).toBeGreaterThan(300);
  });

  it('has no cycle between folders', () => {
    expect(cycles(folderEdges(edges))).toEqual([]);
  });

  it('has no cycle between files', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('puts every folder in a layer', () => {
    expect(unlayeredFolders(sourceFiles(SRC), LAYERS)).toEqual([]);
  });

  it('has no import from a folder to one in its own or a higher layer', () => {
    expect(backEdges(edges, LAYERS)).toEqual([]);
  });

  it('is drawn as it is checked in docs/architecture.md', () => {
    const doc = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');
    // The diagram lists the layers top down, one line each: "  main", "  log · metrics", ...
    const drawn = [...doc.matchAll(/^ {2}([a-z-]+(?: · [a-z-]+)*)\s+│/gm)].map((m) => (m[1] as string).split(' · '));
    expect(drawn).toEqual([...LAYERS].reverse());
  });
});

describe('the files of src/, lab/ and scripts/', () => {
  // Small files with one concept each (STYLE.md): a file that outgrows this has two concepts (issue 27).
  // Test files under test/ are exempt: their length is mostly tables of cases, which read best whole.
  const MAX_LINES = 250;
  const ROOT = new URL('..', import.meta.url).pathname;
  const FOLDERS = ['src', 'lab', 'scripts'] as const;
  const lineCount = (path: string) => readFileSync(path, 'utf8').split('\n').length - 1;

  it(`are at most ${MAX_LINES} lines each`, () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(`${ROOT}${folder}`).map((f) => `${folder}/${f}`));
    // Each folder is really read (a wrong path would make the check vacuous).
    for (const folder of FOLDERS) expect(files.filter((f) => f.startsWith(`${folder}/`)).length, folder).toBeGreaterThan(20);
    expect(files.some((f) => f.includes('node_modules/')), 'node_modules is not the project').toBe(false);
    const long = files.map((f) => ({ f, lines: lineCount(`${ROOT}${f}`) })).filter((x) => x.lines > MAX_LINES);
    expect(long.map((x) => `${x.f}: ${x.lines}`)).toEqual([]);
  });
});

// The lab (etcd clusters, certificates, network namespaces, the stand-ins) is a package of its own that
// the tests, the demo and the bench import by name (#lab/); the image holds src/ only.
describe('the walls between src/, lab/, scripts/ and test/', () => {
  const ROOT = new URL('..', import.meta.url).pathname;
  const imports = repoImports(ROOT, ['src', 'lab', 'scripts', 'test']);

  it('finds the imports it checks', () => {
    const crossing = (from: string, to: string) => expect(imports.map(({ from, to }) => ({ from, to }))).toContainEqual({ from, to });
    crossing('scripts/demo/main.ts', 'lab/etcd/cluster.ts');
    crossing('lab/netns/netns-cluster.ts', 'lab/etcd/cluster.ts');
    crossing('test/integration/haproxy.test.ts', 'lab/haproxy/haproxy.ts');
    crossing('src/main.ts', 'src/cli/serve.ts');
  });

  it('has src/ import nothing outside it, lab/ and scripts/ nothing from test/, and lab folders one another by #lab/ only', () => {
    expect(wallBreaches(imports)).toEqual([]);
  });

  it('resolves every #lab/ import to a file of lab/', () => {
    const missing = imports.filter((i) => i.specifier.startsWith('#') && !existsSync(new URL(`../${i.to}`, import.meta.url)));
    expect(missing).toEqual([]);
  });

  it('flags each kind of breach', () => {
    const at = (from: string, specifier: string, to: string): RepoImport => ({ from, specifier, to });
    expect(
      wallBreaches([
        at('src/app.ts', '#lab/etcd/cluster.ts', 'lab/etcd/cluster.ts'),
        at('src/app.ts', '../test/helpers/http.ts', 'test/helpers/http.ts'),
        at('scripts/bench/main.ts', '../../test/helpers/http.ts', 'test/helpers/http.ts'),
        at('lab/etcd/cluster.ts', '../../test/helpers/http.ts', 'test/helpers/http.ts'),
        at('lab/etcd/cluster.ts', '../../src/app.ts', 'src/app.ts'),
        at('lab/netns/netns-cluster.ts', '../etcd/cluster.ts', 'lab/etcd/cluster.ts'),
        at('scripts/bench/main.ts', '../demo/keys.ts', 'scripts/demo/keys.ts'),
        at('scripts/bench/main.ts', '../../lab/etcd/cluster.ts', 'lab/etcd/cluster.ts'),
      ]),
    ).toHaveLength(8);
    expect(
      wallBreaches([
        at('lab/netns/netns-cluster.ts', '#lab/etcd/cluster.ts', 'lab/etcd/cluster.ts'),
        at('lab/netns/netns-cluster.ts', './link-faults.ts', 'lab/netns/link-faults.ts'),
        at('scripts/bench/main.ts', './report.ts', 'scripts/bench/report.ts'),
        at('scripts/bench/main.ts', '../../src/app.ts', 'src/app.ts'),
        at('test/integration/cli.test.ts', '../../scripts/demo/keys.ts', 'scripts/demo/keys.ts'),
      ]),
    ).toEqual([]);
  });
});

describe('the import check itself', () => {
  it('reads static, multi-line, type-only, re-exported, bare and dynamic imports, not quoted ones in comments', () => {
    const text = [
      "import { a } from './a.ts';",
      'import {',
      '  b,',
      "} from '../b/b.ts';",
      "import type { C } from './c.ts';",
      "export { d } from './d.ts';",
      "import './e.ts';",
      "const f = await import('./f.ts');",
      " * import { g } from './g.ts';",
      "// import { h } from './h.ts';",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(['../b/b.ts', './a.ts', './c.ts', './d.ts', './e.ts', './f.ts']);
  });

  it('finds a cycle between two folders, and one through three', () => {
    expect(cycles(folderEdges([edge('config/usage.ts', 'cli/command-line.ts'), edge('cli/command-line.ts', 'config/config-error.ts')]))).toEqual([['cli', 'config']]);
    const three = [edge('a/x.ts', 'b/y.ts'), edge('b/y.ts', 'c/z.ts'), edge('c/z.ts', 'a/w.ts'), edge('c/z.ts', 'd/v.ts')];
    expect(cycles(folderEdges(three))).toEqual([['a', 'b', 'c']]);
  });

  it('finds a cycle between two files of one folder, but not a chain', () => {
    expect(cycles([edge('discovery/create-source.ts', 'discovery/create-kube-source.ts'), edge('discovery/create-kube-source.ts', 'discovery/create-source.ts')])).toEqual([
      ['discovery/create-kube-source.ts', 'discovery/create-source.ts'],
    ]);
    expect(cycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')])).toEqual([]);
  });

  it('flags an import up the layers, across one layer, and out of or into an unlayered folder', () => {
    const layers: Layers = [['config', 'probe'], ['discovery'], ['cli']];
    expect(backEdges([edge('probe/prober.ts', 'discovery/member-source.ts')], layers)).toEqual([
      { from: 'probe', to: 'discovery', example: edge('probe/prober.ts', 'discovery/member-source.ts') },
    ]);
    expect(backEdges([edge('config/settings.ts', 'probe/reason.ts')], layers).map((b) => `${b.from} -> ${b.to}`)).toEqual(['config -> probe']);
    expect(backEdges([edge('x/a.ts', 'config/config.ts'), edge('cli/serve.ts', 'x/b.ts')], layers).map((b) => `${b.from} -> ${b.to}`)).toEqual(['x -> config', 'cli -> x']);
    expect(unlayeredFolders(['x/a.ts', 'cli/serve.ts', 'app.ts'], layers)).toEqual(['app', 'x']);
  });

  it('allows imports down the layers and within a folder', () => {
    const layers: Layers = [['config', 'probe'], ['discovery'], ['cli']];
    const down = [edge('cli/serve.ts', 'config/config.ts'), edge('discovery/a.ts', 'probe/b.ts'), edge('probe/a.ts', 'probe/b.ts')];
    expect(backEdges(down, layers)).toEqual([]);
  });
});
