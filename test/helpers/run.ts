/** Runs the built `prs` binary as a user would: a child process with its own env and config dir. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PRS_BIN = fileURLToPath(new URL('../../bin/prs.js', import.meta.url));

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  cwd?: string;
  timeoutMs?: number;
  /** Another copy of bin/prs.js (a package laid out differently); default the repository's. */
  bin?: string;
}

/** A clean environment: no PRS_*, proxy, colour or CI variables from the shell (or from CI itself) leak into tests. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^PRS_|_PROXY$|^NO_PROXY$|_proxy$|^FORCE_COLOR$|^NO_COLOR$|^CI$/i.test(k))
      continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * Collects a child's output; resolves when it exits (killed after `timeoutMs`). `onStdout` sees the
 * output so far, for callers that wait for a line before going on.
 */
export function collect(
  child: ChildProcessWithoutNullStreams,
  timeoutMs = 20_000,
  onStdout?: (soFar: Buffer[]) => void,
): { done: Promise<RunResult>; stderr: () => string } {
  // A prs that ends before reading its input (a usage error, exit 2) closes its stdin: the EPIPE of
  // our write is no failure of the test (unhandled, it failed a whole CI run once).
  child.stdin?.on('error', () => {});
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => {
    out.push(c);
    onStdout?.(out);
  });
  child.stderr.on('data', (c: Buffer) => err.push(c));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
      });
    });
  });
  return { done, stderr: () => Buffer.concat(err).toString('utf8') };
}

export function runPrs(args: string[], o: RunOptions = {}): Promise<RunResult> {
  const child = spawn(process.execPath, [o.bin ?? PRS_BIN, ...args], {
    env: baseEnv(o.env),
    cwd: o.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const { done } = collect(child, o.timeoutMs);
  child.stdin.end(o.input ?? '');
  return done;
}

/**
 * Runs prs with its stdout already closed by the reader (as after `| head` has exited): every write
 * to stdout fails with EPIPE, whatever the timing.
 */
export function runPrsIntoClosedPipe(args: string[], o: RunOptions = {}): Promise<RunResult> {
  const child = spawn(process.execPath, [PRS_BIN, ...args], {
    env: baseEnv(o.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  const { done } = collect(child, o.timeoutMs);
  child.stdin.end(o.input ?? '');
  return done;
}

export interface TempDir {
  path: string;
  /** A new empty directory in it, `<name><n>` (out0, out1, …): one per test or per run. */
  fresh(name?: string): string;
  cleanup(): void;
}

/** A temporary directory removed by its cleanup. */
export function tempDir(prefix = 'prs-test-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    path,
    fresh(name = 'out') {
      const dir = join(path, `${name}${n++}`);
      mkdirSync(dir);
      return dir;
    },
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}
