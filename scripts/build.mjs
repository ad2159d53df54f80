// Bundles src/ into dist/ with code splitting, so every lazy `import()` in the CLI stays a separate
// chunk: `prs --version` loads only the entry, never undici, conf, ora or cli-table3.
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so tests running the binary meanwhile never see a half-built tree.
const out = `dist.build-${process.pid}`;
await build({
  entryPoints: { main: 'src/entry.ts', sandbox: 'src/sandbox/index.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { __PRS_VERSION__: JSON.stringify(version) },
  chunkNames: 'chunks/[name]-[hash]',
  // Some dependencies are CommonJS and call require(); give ESM chunks a real one.
  banner: {
    js: "import { createRequire as __prsRequire } from 'node:module'; const require = __prsRequire(import.meta.url);",
  },
});

const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
