function qualityOf(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = -1;
  let bestSpecificity = -1;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < 0 || specificity < bestSpecificity) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    best = q === undefined ? 1 : Math.min(1, Number(q));
    bestSpecificity = specificity;
  }
  return best;
}

/** Whether an Accept header prefers text/plain over application/json (a tie, or no header, is JSON). */
export function prefersText(accept: string | undefined): boolean {
  if (!accept) return false;
  return qualityOf(accept, 'text/plain') > Math.max(0, qualityOf(accept, 'application/json'));
}
