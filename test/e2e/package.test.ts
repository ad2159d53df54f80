/**
 * The npm package (CLI.md "Installing, help and first steps"): a name of its own, the `prs` command,
 * its LICENSE, and only what the built bundle loads as dependencies. Reads the BUILT dist/.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * Packages dist/ may try to load without their being dependencies: each is loaded inside a try and
 * only for a feature prs does not use.
 */
const OPTIONAL: Record<string, string> = {
  '@node-rs/xxhash': "@redis/client's digest(), which prs never calls",
};

/** Bare specifiers that dist/ requires or imports at run time (not inside a string of generated code). */
function runtimeImports(): Set<string> {
  const found = new Set<string>();
  const dist = join(root, 'dist');
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(join(dist, file), 'utf8');
    // A quote or backtick right before: a string that ajv puts into code it generates, not a call.
    // createRequire(__filename)("x"): a package loaded from node_modules beside dist/ (render/jq.ts).
    for (const m of text.matchAll(
      /(?<![\w$.'"`])(?:require|import)\("([^"]+)"\)|\(__filename\)\("([^"]+)"\)/g,
    )) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return found;
}

describe('the npm package', () => {
  it('has a name of its own (`prs` on the registry is another package) and installs the `prs` command', () => {
    expect(pkg.name).not.toBe('prs');
    expect(pkg.name).toBe('portfolio-report-cli');
    expect(pkg.bin).toEqual({ prs: 'bin/prs.js' });
  });

  it('carries the LICENSE that package.json names', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });

  it('depends on exactly what dist/ loads at run time; what the bundle inlines is a devDependency', () => {
    const loaded = [...runtimeImports()].filter((p) => !(p in OPTIONAL)).sort();
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(loaded);
    for (const p of Object.keys(OPTIONAL)) expect(pkg.dependencies?.[p]).toBeUndefined();
  });

  it('packs bin, dist, completions, README and LICENSE; no sources or tests', () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    const paths = packed!.files.map((f) => f.path);
    for (const want of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/prs.js',
      'dist/main.js',
      'dist/fast.js',
      'dist/hit.js',
    ])
      expect(paths).toContain(want);
    expect(paths.filter((p) => /^(src|test|scripts)\//.test(p))).toEqual([]);
  });
});
