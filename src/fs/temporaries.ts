/**
 * The temporary files of this process that are not yet committed or removed. Normally each one is
 * removed by its writer's own cleanup; this list is for the one path that cannot wait for that: a
 * second signal, or a cleanup stuck past its grace period, where src/main.ts must leave at once and
 * removes them synchronously first. Process-wide on purpose: a temporary file is the process's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

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

/**
 * This machine in 4 hex digits, in every temporary file's name: a directory shared between machines
 * (NFS) holds other hosts' temporaries, whose process ids mean nothing here.
 */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 4);

/** `.<name>.<pid>.<host tag><4 random hex>.tmp`: hidden, and telling whose it is. */
export function tempNameFor(name: string): string {
  return `.${name}.${process.pid}.${HOST_TAG}${randomBytes(2).toString('hex')}.tmp`;
}

const TEMP_NAME = /^\..+\.(\d{1,7})\.([0-9a-f]{4})[0-9a-f]{4}\.tmp$/;

/** Whether a process with this id exists (EPERM: it does, only it is someone else's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes from `dir` the temporary files of this machine's prs runs that are gone (`kill -9`, out of
 * memory, a power cut): those whose process id no longer exists. A live process's are never touched,
 * nor another machine's. A pid reused since by an unrelated process keeps its stale file until that
 * process ends too: erring towards keeping a file, never removing a writer's. Best effort; returns
 * the names removed.
 */
export async function removeStaleTemporaries(
  dir: string,
  alive: (pid: number) => boolean = processAlive,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m || m[2] !== HOST_TAG) continue;
    const pid = Number(m[1]);
    if (pid < 1 || pid === process.pid || alive(pid)) continue;
    try {
      await unlink(join(dir, name));
      removed.push(name);
    } catch {}
  }
  return removed;
}
