import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One relative import: the importing file and the imported one, both relative to the source root. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** The layers from the bottom up; the folders of one layer may not import each other. */
export type Layers = readonly (readonly string[])[];

/** A folder that imports one in its own or a higher layer, with one file-level import that shows it. */
export interface BackEdge {
  readonly from: string;
  readonly to: string;
  readonly example: ImportEdge;
}

// Module statements begin at the start of a line; a doc comment that quotes one begins with " *".
// Type-only imports count: a type is as much a dependency of the design as a value.
const STATIC_IMPORT = /^(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gm;
const BARE_IMPORT = /^import\s+['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The specifiers a module's text imports: static, bare (side effect only) and dynamic. */
export function importSpecifiers(text: string): string[] {
  return [STATIC_IMPORT, BARE_IMPORT, DYNAMIC_IMPORT].flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1] as string));
}

/** Every TypeScript file under root, relative to it, with '/' separators. */
export function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    // A tool's own dependencies (scripts/openapi-tools/node_modules, after its npm ci) are not the project.
    .filter((e) => !(e.isDirectory() && e.name === 'node_modules'))
    .flatMap((e) => (e.isDirectory() ? sourceFiles(root, join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(root, join(dir, e.name))] : []))
    .map((f) => f.split('\\').join('/'))
    .sort();
}

/** The relative imports between the files under root (packages and node: built-ins are left out). */
export function importEdges(root: string): ImportEdge[] {
  return sourceFiles(root).flatMap((from) =>
    importSpecifiers(readFileSync(join(root, from), 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => ({ from, to: relative(root, resolve(root, dirname(from), s)).split('\\').join('/') })),
  );
}

/** The folder a file belongs to: its first path segment, or its own name without .ts at the root (app, main). */
export function folderOf(file: string): string {
  const [first, ...rest] = file.split('/');
  return rest.length === 0 ? (first as string).replace(/\.ts$/, '') : (first as string);
}

/** The strongly connected groups of more than one node (or a node importing itself): each holds a cycle. */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)?.add(to);
  }
  // Tarjan's algorithm, iterative so that a long chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; children: string[] }[] = [];
    const visit = (node: string): void => {
      index.set(node, index.size);
      low.set(node, index.get(node) as number);
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: [...(next.get(node) ?? [])].sort() });
    };
    visit(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; children: string[] };
      const child = frame.children.shift();
      if (child !== undefined) {
        if (!index.has(child)) visit(child);
        else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(child) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.node);
      if (group.length > 1 || next.get(frame.node)?.has(frame.node)) found.push(group.sort());
    }
  }
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** The file edges lifted to folders, imports within one folder left out. */
export function folderEdges(edges: readonly ImportEdge[]): ImportEdge[] {
  return edges.map((e) => ({ from: folderOf(e.from), to: folderOf(e.to) })).filter((e) => e.from !== e.to);
}

/** Every folder-to-folder import that does not point to a strictly lower layer; folders in no layer are errors too. */
export function backEdges(edges: readonly ImportEdge[], layers: Layers): BackEdge[] {
  const level = new Map(layers.flatMap((folders, i) => folders.map((f) => [f, i] as const)));
  const found = new Map<string, BackEdge>();
  for (const edge of edges) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    const upward = (level.get(to) ?? Infinity) >= (level.get(from) ?? -Infinity);
    const key = `${from} -> ${to}`;
    if (upward && !found.has(key)) found.set(key, { from, to, example: edge });
  }
  return [...found.values()];
}

/** The folders that hold files but are in no layer. */
export function unlayeredFolders(files: readonly string[], layers: Layers): string[] {
  const known = new Set(layers.flat());
  return [...new Set(files.map(folderOf))].filter((f) => !known.has(f)).sort();
}

/** One import between two areas of the repository (src/, lab/, scripts/, test/): paths from its root, as written. */
export interface RepoImport extends ImportEdge {
  readonly specifier: string;
}

/** The relative and `#lab/` imports of the files under the given folders of root; `#lab/x` resolves to lab/x. */
export function repoImports(root: string, folders: readonly string[]): RepoImport[] {
  return folders
    .flatMap((folder) => sourceFiles(join(root, folder)).map((file) => `${folder}/${file}`))
    .flatMap((from) =>
      importSpecifiers(readFileSync(join(root, from), 'utf8'))
        .filter((s) => s.startsWith('.') || s.startsWith('#'))
        .map((specifier) => ({
          from,
          specifier,
          to: specifier.startsWith('#lab/') ? `lab/${specifier.slice('#lab/'.length)}` : specifier.startsWith('#') ? specifier : relative(root, resolve(root, dirname(from), specifier)).split('\\').join('/'),
        })),
    );
}

/** The tool a file belongs to: its first two path segments (lab/etcd, scripts/bench), or its area for a file at the top of one. */
function toolOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

/**
 * The imports that cross a wall, each with why: src/ imports only src/ (the image holds nothing else);
 * lab/ imports only lab/, and another lab folder only by `#lab/`; scripts/ imports src/, lab/ (by
 * `#lab/`) and its own folder; nothing under lab/ or scripts/ imports test/.
 */
export function wallBreaches(imports: readonly RepoImport[]): string[] {
  const breaches: string[] = [];
  for (const { from, to, specifier } of imports) {
    const [fromArea, toArea] = [from.split('/')[0], to.split('/')[0]];
    const say = (why: string) => breaches.push(`${from} imports ${specifier}: ${why}`);
    if (fromArea === 'src' && toArea !== 'src') say('src/ imports only src/');
    else if ((fromArea === 'lab' || fromArea === 'scripts') && toArea === 'test') say(`${fromArea}/ never imports test/`);
    else if (fromArea === 'lab' && toArea !== 'lab') say('lab/ imports only lab/');
    else if (fromArea === 'scripts' && toArea === 'scripts' && toolOf(from) !== toolOf(to)) say("a script reaches only its own tool's folder");
    else if (fromArea === 'scripts' && !['src', 'lab', 'scripts'].includes(toArea ?? '')) say('scripts/ imports src/, lab/ and its own folder');
    else if (toArea === 'lab' && specifier.startsWith('.') && toolOf(from) !== toolOf(to)) say('lab/ is imported by #lab/ (from another lab folder too), not by a relative path');
  }
  return breaches;
}
