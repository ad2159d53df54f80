/**
 * The temporary files of this process that are not yet committed or removed. Normally each one is
 * removed by its writer's own cleanup; this list is for the one path that cannot wait for that: a
 * second signal, or a cleanup stuck past its grace period, where src/main.ts must leave at once and
 * removes them synchronously first. Process-wide on purpose: a temporary file is the process's.
 */
import { unlinkSync } from 'node:fs';

const live = new Set<string>();

export const temporaries = {
  add: (path: string) => void live.add(path),
  delete: (path: string) => void live.delete(path),
  /** Removes every live temporary file now; best effort (one already gone is fine). */
  removeAllSync(): void {
    for (const path of live) {
      try {
        unlinkSync(path);
      } catch {}
      live.delete(path);
    }
  },
};
