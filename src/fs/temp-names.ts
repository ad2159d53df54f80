import { readdirSync, readlinkSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

// This machine and pid namespace in 4 hex digits: in a shared directory others' pids mean nothing here
// (a container on the host's network has the host's name, not its pids).
let hostTag: string | undefined;
export const hostTagOf = () => (hostTag ??= fnv1a(`${hostname()}\0${pidNamespace()}`).slice(-4));

/**
 * 64-bit FNV-1a in 16 hex digits, a stable short name for text that is not secret (no node:crypto).
 * In two 32-bit halves (the prime is 2^40 + 0x1b3), exact in doubles: BigInt steps cost every run.
 */
export function fnv1a(text: string): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const byte of Buffer.from(text)) {
    const x = (lo ^ byte) >>> 0;
    const low = x * 0x1b3;
    lo = low >>> 0;
    hi = (hi * 0x1b3 + Math.floor(low / 2 ** 32) + ((x << 8) >>> 0)) >>> 0;
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** `.<name>.<pid>.<host tag><4 random hex>.tmp`: hidden, and telling whose it is. */
export function tempNameFor(name: string): string {
  const random = (0x10000 + Math.floor(Math.random() * 0x10000)).toString(16).slice(1);
  return `.${name}.${process.pid}.${hostTagOf()}${random}.tmp`;
}

const TEMP_NAME = /^\..+\.(\d{1,7})\.([0-9a-f]{4})[0-9a-f]{4}\.tmp$/;

/** EPERM: it exists, only it is someone else's. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Best effort: this machine's temporaries in `dir` whose process is gone (a reused pid keeps its file). */
export function removeStaleTemporaries(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    const pid = Number(m?.[1]);
    if (m?.[2] !== hostTagOf() || pid < 1 || pid === process.pid || processAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {}
  }
}
