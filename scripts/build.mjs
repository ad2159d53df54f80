// Bundles src/ into dist/ with code splitting, so every lazy `import()` in the CLI stays a separate
// chunk: `prs --version` loads only the entry, never undici, conf, ora or cli-table3.
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

/**
 * Requires that dependencies make at load time but prs rarely or never needs, deferred to first use:
 * commander's child_process (only for executable subcommands) and undici's HTTP/2 client (which loads
 * node:http2 and tls; prs speaks HTTP/1.1 unless a server offers h2 over TLS). Several ms per start.
 */
const LAZY_REQUIRES = {
  'node_modules/commander/lib/command.js': "require('node:child_process')",
  'node_modules/undici/lib/dispatcher/client.js': "require('./client-h2.js')",
};
const LAZY_HELPER =
  'function __prsLazy(load) { let m; const get = () => (m ??= load()); return new Proxy(function () {}, ' +
  '{ get: (_, k) => get()[k], has: (_, k) => k in get(), apply: (_, self, args) => Reflect.apply(get(), self, args) }); }\n';
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    const filter = new RegExp(`(${Object.keys(LAZY_REQUIRES).join('|').replaceAll('.', '\\.')})$`);
    b.onLoad({ filter }, (args) => {
      const key = Object.keys(LAZY_REQUIRES).find((k) => args.path.endsWith(k));
      const call = LAZY_REQUIRES[key];
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(call)) {
        console.warn(`build: ${key} no longer contains ${call}; it now loads eagerly`);
        return undefined;
      }
      return { contents: LAZY_HELPER + text.replace(call, `__prsLazy(() => ${call})`), loader: 'js' };
    });
  },
};

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
  plugins: [lazyRequires],
  // Some dependencies are CommonJS and call require(); give ESM chunks a real one.
  banner: {
    js: "import { createRequire as __prsRequire } from 'node:module'; const require = __prsRequire(import.meta.url);",
  },
});

const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
