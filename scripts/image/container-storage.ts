import { exec, type ExecOptions, type ExecResult } from './exec.ts';

// buildah and podman share one containers/storage store kept in the image cache, apart from the
// machine's default store, so the test neither sees nor disturbs other images there.

/** A containers/storage store: its persistent root, its run-state folder and its driver. */
export interface ContainerStorage {
  readonly root: string;
  readonly runroot: string;
  readonly driver: string;
}

function storageFlags(storage: ContainerStorage): string[] {
  return ['--root', storage.root, '--runroot', storage.runroot, '--storage-driver', storage.driver];
}

/** Runs buildah against the store. */
export function buildah(storage: ContainerStorage, args: readonly string[], options?: ExecOptions): Promise<ExecResult> {
  return exec('buildah', [...storageFlags(storage), ...args], options);
}

/**
 * Runs podman against the store. Debian's default runtime, crun 1.8, refuses this machine's mixed cgroup v1 +
 * v2 ("hybrid") layout, so runc with the cgroupfs manager runs the container; without systemd, events go to
 * a file.
 */
export function podman(storage: ContainerStorage, args: readonly string[], options?: ExecOptions): Promise<ExecResult> {
  return exec('podman', [...storageFlags(storage), '--cgroup-manager', 'cgroupfs', '--runtime', 'runc', '--events-backend', 'file', ...args], options);
}

/** The image's ID in the store, or null when no image has that name. */
export async function imageId(storage: ContainerStorage, name: string): Promise<string | null> {
  const result = await buildah(storage, ['images', '--noheading', '--no-trunc', '--format', '{{.ID}}', name], { okCodes: [125, 1] });
  return result.code === 0 ? (result.stdout.trim().split('\n')[0] ?? null) || null : null;
}
