// This process's uncommitted temporary files, for the one path that cannot wait for their writers'
// cleanup: a second signal, where main removes them synchronously before leaving.
import { unlinkSync } from 'node:fs';

export const temporaries = Object.assign(new Set<string>(), {
  removeAllSync(this: Set<string>): void {
    for (const path of this) {
      try {
        unlinkSync(path);
      } catch {}
    }
    this.clear();
  },
});
