import { statSync } from 'node:fs';

/**
 * A cheap fingerprint of files' state (inode, size, change and modification times, or the error): it
 * changes when a file is rewritten in place or when a Kubernetes Secret volume swaps its `..data`
 * symlink (stat follows links), so files are re-read only when this differs. fs.watch misses the
 * symlink swap, hence polling.
 */
export function fileStamp(paths: readonly (string | null)[]): string {
  return paths
    .map((path) => {
      if (path === null) return '-';
      try {
        const s = statSync(path, { bigint: true });
        return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? 'error';
      }
    })
    .join('|');
}
