// What a container's environment becomes in a pod, as the kubelet builds it: a downward-API label read
// from the pod's labels (empty when the pod lacks it, as the kubelet gives it), and $(NAME) expanded
// from the entries before it (k8s.io/kubernetes third_party/forked/golang/expansion: `$$` is a literal
// `$`, a reference to a name not defined yet stays as written).

/** One entry of a rendered container's env list. */
export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } };
}

const LABEL_FIELD = /^metadata\.labels\['([^']+)'\]$/;

/** Expands `$(NAME)` references in `text` from `defined`, as the kubelet does. */
export function expandReferences(text: string, defined: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([^)]*)\)/g, (match: string, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && defined.has(name) ? (defined.get(name) as string) : match;
  });
}

/** The environment a container of a pod with `labels` starts with; throws on a source this helper does not model. */
export function podEnv(env: readonly EnvVar[], labels: Readonly<Record<string, string>>): Record<string, string> {
  const defined = new Map<string, string>();
  for (const entry of env) {
    if (entry.valueFrom) {
      const label = LABEL_FIELD.exec(entry.valueFrom.fieldRef?.fieldPath ?? '');
      if (!label) throw new Error(`${entry.name}: valueFrom ${JSON.stringify(entry.valueFrom)} is not modelled here`);
      defined.set(entry.name, labels[label[1] as string] ?? '');
    } else {
      defined.set(entry.name, expandReferences(entry.value ?? '', defined));
    }
  }
  return Object.fromEntries(defined);
}
