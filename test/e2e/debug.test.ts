/**
 * PRS_DEBUG=1 against the BUILT binary (`npm run build` first): the stack trace it adds names the
 * TypeScript sources (src/*.ts lines, through the source maps the build writes beside every chunk),
 * not the minified bundle; without it, no stack at all. And a bundle missing a file says so in one line.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runPrs, tempDir } from '../helpers/run.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'dist');
const tmp = tempDir('prs-debug-');
afterAll(() => tmp.cleanup());

// No base URL anywhere: a usage error (exit 2) thrown deep in the service adapter, before any request.
// (A ready token: on a machine with nothing at all it would be "not logged in", exit 4.)
const noBaseUrl = (env: Record<string, string>) =>
  runPrs(['report', '42', '-t', 'index', '-d', '2024-05-01'], {
    env: {
      PRS_CONFIG_DIR: join(tmp.path, 'config'),
      PRS_CACHE_DIR: join(tmp.path, 'cache'),
      PRS_TOKEN: 'ready-token',
      ...env,
    },
  });

describe('PRS_DEBUG', () => {
  it.each(['1', 'true'])('PRS_DEBUG=%s: the stack names src/*.ts lines, the throw site first', async (v) => {
    const r = await noBaseUrl({ PRS_DEBUG: v });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('prs: no base URL for the report service');
    const frames = lines.filter((l) => /^\s+at /.test(l));
    expect(frames.length).toBeGreaterThan(2);
    expect(r.stderr).not.toMatch(/[/\\]dist[/\\]/);
    // The first frame is where the error was made, the next the throw: those lines of the source say so.
    const at = (frame: string) => {
      const [, file, line] = /\((.+\.ts):(\d+):\d+\)/.exec(frame) ?? [];
      expect(file).toBe(join(root, 'src', 'service', 'service.ts'));
      return readFileSync(file!, 'utf8').split('\n')[Number(line) - 1];
    };
    expect(at(frames[0]!)).toMatch(/new UsageError\(/);
    expect(at(frames[1]!)).toMatch(/throw missing\('no base URL/);
  });

  it('unset: the one-line error and its hint, no stack', async () => {
    const r = await noBaseUrl({});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'prs: no base URL for the report service',
      'hint: pass --base-url, set PRS_BASE_URL, or run `prs login`',
    ]);
  });

  it('every bundle file has its map, and every prs source the maps name exists', () => {
    const js = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(js.length).toBeGreaterThan(10);
    for (const f of js) {
      const code = readFileSync(join(dist, f), 'utf8');
      expect(code.trimEnd().endsWith(`//# sourceMappingURL=${f.split('/').pop()}.map`), f).toBe(true);
      const map = JSON.parse(readFileSync(join(dist, `${f}.map`), 'utf8')) as { sources: string[] };
      expect(map.sources.length, f).toBeGreaterThan(0);
      for (const s of map.sources) {
        // The build's stand-in modules (scripts/build.mjs: prs-stub:…, prs-assert:…) have no file, and a
        // dependency's own maps may name sources it does not ship (signal-exit's src/*.ts).
        if (/^prs-[a-z]+:/.test(s) || s.includes('node_modules/')) continue;
        expect(existsSync(resolve(dirname(join(dist, f)), s)), `${f}: ${s}`).toBe(true);
      }
    }
  });
});

describe('a partial install', () => {
  it('a file missing from dist/: one line naming it and the fix, exit 1, no stack', async () => {
    // A copy of the package (bin, dist, package.json, node_modules linked) without the CLI's start.
    const copy = join(tmp.path, 'package');
    for (const part of ['bin', 'dist', 'package.json'])
      cpSync(join(root, part), join(copy, part), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
    rmSync(join(copy, 'dist', 'cli.pack'));
    const r = await runPrs(['report', '42'], {
      bin: join(copy, 'bin', 'prs.js'),
      env: { PRS_CONFIG_DIR: join(tmp.path, 'config') },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "prs: internal error: cannot load the CLI (Cannot find module './cli.pack'); run `npm run build`\n",
    );
    expect(r.stdout).toBe('');
  });
});
