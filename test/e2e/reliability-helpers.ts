/**
 * Shared pieces of the reliability suite (test/e2e/reliability-*.test.ts, test/e2e/fuzz-*.test.ts):
 * the contract's "clean failure" check, a spawned prs for Ctrl-C tests (the sandbox login is
 * test/helpers/session.ts).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { baseEnv, collect, PRS_BIN, type RunResult } from '../helpers/run.js';

/** The exit codes of CLI.md. */
export const CONTRACT_CODES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 130, 143] as const;

/** A stack frame, an `Error:` dump or a Node warning: never on prs's stderr. */
export const STACK = /^\s+at |\n\s+at |^\w*Error: |\n\w*Error: |\(node:\d+\)|file:\/\/|node:internal/m;

/**
 * A failure as the contract wants it: the exit code, `prs: <message>` as the first line, at most one
 * `hint:` line after it, no stack trace, no HTML, nothing on stdout.
 */
export function expectCleanFailure(r: RunResult, code: number, message?: RegExp): void {
  const lines = r.stderr.replace(/\n$/, '').split('\n');
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code, stderr: expect.stringMatching(/^prs: /) });
  expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
  if (lines[1] !== undefined) expect(lines[1]).toMatch(/^hint: /);
  expect(r.stderr).not.toMatch(STACK);
  expect(r.stderr).not.toMatch(/<\/?(!doctype|html|head|body|title|h\d|p|div|span|script|pre)\b/i);
  if (message) expect(lines[0]).toMatch(message);
}

/** Files a run may have left behind in `dir`: prs's temporary files (`.<name>.<pid>.<hex>.tmp`). */
export const tempFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

/** Parses a JSON file, failing the test with the file's name when it is not valid JSON. */
export function readJson(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}\n${text.slice(0, 200)}`);
  }
}

/** A prs process to interrupt: collects its output, resolves `done` with the result. */
interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  done: Promise<RunResult>;
}

export function spawnPrs(args: string[], env: Record<string, string>, cwd?: string): Spawned {
  const child = spawn(process.execPath, [PRS_BIN, ...args], { env: baseEnv(env), cwd });
  const { done, stderr } = collect(child);
  child.stdin.end();
  return { child, stderr, done };
}

/** Polls `cond` every 20 ms for up to `ms`; true once it held. */
export async function waitFor(cond: () => boolean, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}
