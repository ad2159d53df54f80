// This process's uncommitted temporary files, for the one path that cannot wait for their writers'
// cleanup: a second signal, where main removes them synchronously before leaving.
import { unlinkSync } from 'node:fs';

const live = new Set<string>();

export const temporaries = {
  add: (path: string) => void live.add(path),
  delete: (path: string) => void live.delete(path),
  removeAllSync(): void {
    for (const path of live) {
      try {
        unlinkSync(path);
      } catch {}
      live.delete(path);
    }
  },
};
