/** The live temporary files main removes when it must leave at once (a second Ctrl-C, a stuck cleanup). */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAtomicFile } from '../../../src/fs/atomic.js';
import { fnv1a, processAlive, removeStaleTemporaries, tempNameFor } from '../../../src/fs/temp-names.js';
import { temporaries } from '../../../src/fs/temporaries.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prs-temporaries-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('temporaries', () => {
  it('removeAllSync removes the temporary file of a write in progress', async () => {
    const file = await createAtomicFile(join(dir, 'a.json'), { force: false });
    file.stream.write('[1,');
    expect(existsSync(file.tempPath)).toBe(true);
    temporaries.removeAllSync();
    expect(readdirSync(dir)).toEqual([]);
    await file.abort();
  });
});

// Limiter state files and temporary names are named by it: the values must never change.
describe('fnv1a', () => {
  it.each([
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
    ['http://127.0.0.1:8080|acme|alice', '119697113dbce2b8'],
    ['\u00e9\u0000', '5feb231c1dfafbb3'],
  ])('%j is the 64-bit FNV-1a of its UTF-8 bytes', (text, hash) => {
    expect(fnv1a(text)).toBe(hash);
  });
});

/** A process id that is certainly gone: a child that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('removeStaleTemporaries (the leftovers of a killed run)', () => {
  /** A temporary name as another process of this machine would make it. */
  const nameOf = (base: string, pid: number) => tempNameFor(base).replace(`.${process.pid}.`, `.${pid}.`);

  it("removes those whose process is gone, keeps live processes' and this one's, and anything else", async () => {
    const dead = deadPid();
    const ourHost = /\.([0-9a-f]{4})[0-9a-f]{4}\.tmp$/.exec(tempNameFor('x'))![1];
    const otherHost = ourHost === 'ffff' ? 'eeee' : 'ffff';
    expect(processAlive(dead)).toBe(false);
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(1)).toBe(true); // init: alive, even when kill(1, 0) says EPERM
    const stale = [nameOf('a.zip', dead), nameOf('prs-export-1-2.json', dead)];
    const kept = [
      nameOf('b.zip', process.pid),
      nameOf('c.zip', 1),
      // Another machine's (a shared directory): its process ids mean nothing here.
      `.d.zip.${dead}.${otherHost}0000.tmp`,
      // Tagged by this host name alone, as a process in another pid namespace (a container on the
      // host's network has the host's name) would be without its namespace in the tag.
      ...(existsSync('/proc/self/ns/pid') ? [`.f.zip.${dead}.${fnv1a(hostname()).slice(-4)}0000.tmp`] : []),
      'e.zip',
      `e.zip.${dead}.tmp`,
      `.e.zip.${dead}.12345678.txt`,
    ];
    for (const f of [...stale, ...kept]) writeFileSync(join(dir, f), 'x');
    removeStaleTemporaries(dir);
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());
  });

  it('a missing directory is nothing to do', () => {
    expect(() => removeStaleTemporaries(join(dir, 'nope'))).not.toThrow();
  });
});
