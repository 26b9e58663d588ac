import { LineCounter, parseDocument, type Document } from 'yaml';
import { KubeError, type KubeErrorKind } from './kube-error.ts';

/** Kubeconfigs larger than this are refused unparsed (a Secret holds at most 1 MiB). */
export const MAX_KUBECONFIG_BYTES = 1024 * 1024;

/** A parsed kubeconfig: its plain data, and where each of its fields starts (for messages). */
export interface KubeconfigYaml {
  readonly data: unknown;
  /** The 1-based line of the field at `path` (e.g. `['users', 0, 'user', 'exec']`), or null. */
  lineOf(path: readonly (string | number)[]): number | null;
}

/**
 * Parses a kubeconfig's YAML. A parser's message can quote the source around a mistake (the token on
 * the line above, the start of a key), so a problem is reported by line, column and the parser's error
 * code only, never with its message. Aliases are capped (no "billion laughs"). `kind` says whose
 * mistake it is: the operator's file (invalid-config) or a Secret's (invalid-secret).
 */
export function parseKubeconfigYaml(text: string, label: string, kind: Extract<KubeErrorKind, 'invalid-config' | 'invalid-secret'> = 'invalid-config'): KubeconfigYaml {
  if (Buffer.byteLength(text, 'utf8') > MAX_KUBECONFIG_BYTES) {
    throw new KubeError(kind, `${label}: larger than ${MAX_KUBECONFIG_BYTES} bytes, not read`);
  }
  const lines = new LineCounter();
  let document: Document;
  try {
    document = parseDocument(text, { prettyErrors: false, lineCounter: lines, uniqueKeys: true });
  } catch {
    throw new KubeError(kind, `${label}: not valid YAML`);
  }
  const [error] = document.errors;
  if (error) {
    const { line, col } = lines.linePos(error.pos[0]);
    throw new KubeError(kind, `${label}: not valid YAML at line ${line}, column ${col} (${error.code.toLowerCase().replaceAll('_', ' ')})`);
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    // toJS throws for unresolvable aliases and alias floods; its message may name an anchor: not shown.
    const code = (cause as { code?: unknown }).code;
    throw new KubeError(kind, `${label}: not valid YAML${typeof code === 'string' ? ` (${code.toLowerCase().replaceAll('_', ' ')})` : ''}`);
  }
  return {
    data,
    lineOf(path) {
      const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
      return node?.range ? lines.linePos(node.range[0]).line : null;
    },
  };
}
