// Bundles src/ into dist/ with code splitting, so every lazy `import()` in the CLI stays a separate
// chunk: `prs --version` loads only the entry, never undici, ora or fflate. The chunks are then
// turned into CommonJS (see the end of this file).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, posix, resolve } from 'node:path';
import { build, transform } from 'esbuild';

/**
 * What dependencies do at load time that prs rarely or never needs: commander's child_process (only
 * for executable subcommands) and undici's node:http (a default header size and a class check when
 * destroying a stream) deferred to first use; undici's tree of well-known header names, built at every
 * start to spare a string per response header, dropped (the names are lower-cased as any other).
 * Each entry is an exact [text, replacement] pair; when a dependency upgrade changes the text, the build
 * warns and that module is bundled as it is.
 */
const LAZY = "__prsLazy(() => require('node:http'))";
const REWRITES = {
  'node_modules/commander/lib/command.js': [
    ["require('node:child_process')", "__prsLazy(() => require('node:child_process'))"],
  ],
  'node_modules/undici/lib/dispatcher/client.js': [
    ["const http = require('node:http')", `const http = ${LAZY}`],
    [
      "const getDefaultNodeMaxHeaderSize = http &&\n  http.maxHeaderSize &&\n  Number.isInteger(http.maxHeaderSize) &&\n  http.maxHeaderSize > 0\n  ? () => http.maxHeaderSize\n  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }",
      'const getDefaultNodeMaxHeaderSize = () => http.maxHeaderSize',
    ],
  ],
  'node_modules/undici/lib/core/util.js': [
    ["const { tree } = require('./tree')", 'const tree = { lookup: () => null }'],
    // Likewise its record of those names lower-cased (~190 keys made at every start): a miss is lower-cased.
    [
      "const { headerNameLowerCasedRecord } = require('./constants')",
      'const headerNameLowerCasedRecord = { __proto__: null }',
    ],
    ["const { IncomingMessage } = require('node:http')", `const __prsHttp = ${LAZY}`],
    ['.constructor === IncomingMessage)', '.constructor === __prsHttp.IncomingMessage)'],
  ],
  'node_modules/undici/lib/core/request.js': [
    [
      "const { headerNameLowerCasedRecord } = require('./constants')",
      'const headerNameLowerCasedRecord = { __proto__: null }',
    ],
  ],
};
/**
 * undici's HTTP/1.1 client reads two of llhttp's constant tables (the parser type, the error codes);
 * their module builds some thirty more (methods, statuses, character classes) at every start. The two
 * are taken from it here, at build time, unless the client reads any other.
 */
const H1 = 'node_modules/undici/lib/dispatcher/client-h1.js';
const h1Reads = new Set(
  [...readFileSync(H1, 'utf8').matchAll(/(?<![\w/.'"])constants\.(\w+)/g)].map(([, name]) => name),
);
if ([...h1Reads].every((name) => name === 'TYPE' || name === 'ERROR')) {
  const { TYPE, ERROR } = createRequire(import.meta.url)(
    resolve('node_modules/undici/lib/llhttp/constants.js'),
  );
  REWRITES[H1] = [
    [
      "const constants = require('../llhttp/constants.js')",
      `const constants = ${JSON.stringify({ TYPE, ERROR })}`,
    ],
  ];
} else console.warn(`build: ${H1} reads llhttp constants other than TYPE and ERROR; bundled as it is`);
const LAZY_HELPER =
  'function __prsLazy(load) { let m; const get = () => (m ??= load()); return new Proxy(function () {}, ' +
  '{ get: (_, k) => get()[k], has: (_, k) => k in get(), apply: (_, self, args) => Reflect.apply(get(), self, args) }); }\n';
const rewrites = {
  name: 'rewrites',
  setup(b) {
    const filter = new RegExp(`(${Object.keys(REWRITES).join('|').replaceAll('.', '\\.')})$`);
    b.onLoad({ filter }, (args) => {
      const key = Object.keys(REWRITES).find((k) => args.path.endsWith(k));
      let text = readFileSync(args.path, 'utf8');
      const original = text;
      for (const [from, to] of REWRITES[key]) {
        if (!text.includes(from)) {
          console.warn(`build: ${key} no longer contains ${from.split('\n')[0]}; bundled as it is`);
          return { contents: original, loader: 'js' };
        }
        text = text.replace(from, to);
      }
      return { contents: LAZY_HELPER + text, loader: 'js' };
    });
  },
};

/**
 * Modules of undici that prs cannot reach, replaced by a stub that throws: the HTTP/2 client (used
 * only with `allowH2`, which prs never sets: it speaks HTTP/1.1) and the fetch body extractor that
 * the HTTP/1.1 client requires for FormData request bodies (prs sends strings). With them go ~125 KB
 * of fetch/WebIDL code that V8 would otherwise parse on every request path. Keyed by the importing
 * file and the exact specifier: other importers (the full index, loaded only for proxies, has fetch
 * of its own) get the real modules, and a file renamed by an upgrade is simply bundled again.
 */
const STUBS = {
  'node_modules/undici/lib/dispatcher/client.js': { './client-h2.js': 'HTTP/2 (allowH2)' },
  'node_modules/undici/lib/dispatcher/client-h1.js': { '../web/fetch/body.js': 'FormData request bodies' },
};
/**
 * undici calls node:assert only as `assert(condition)`, for its own invariants; loading node:assert
 * (and its error formatting) costs ~2 ms per start. Its modules get this function instead: a broken
 * invariant still throws, with the same code. Checked at build time: should an upgrade call any other
 * function of node:assert, the build warns and keeps the real module.
 */
const ASSERT_SHIM = `module.exports = function assert(value, message) {
  if (value) return;
  if (message instanceof Error) throw message;
  throw Object.assign(new Error(message === undefined ? 'assertion failed in undici' : String(message)), { code: 'ERR_ASSERTION' });
};
`;
function undiciUsesOnlyAssertCall() {
  const lib = 'node_modules/undici/lib';
  for (const file of readdirSync(lib, { recursive: true })) {
    if (!file.endsWith('.js')) continue;
    const used = /\bassert\.(\w+)\(/.exec(readFileSync(join(lib, file), 'utf8'));
    if (used) {
      console.warn(`build: ${join(lib, file)} calls assert.${used[1]}(); undici keeps node:assert`);
      return false;
    }
  }
  return true;
}

const undiciTrims = {
  name: 'undici-trims',
  setup(b) {
    const shimAssert = undiciUsesOnlyAssertCall();
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const key = Object.keys(STUBS).find((k) => args.importer.endsWith(k));
      const what = key && STUBS[key][args.path];
      return what ? { path: what, namespace: 'prs-stub' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'prs-stub' }, (args) => ({
      contents: `const no = () => { throw new Error('prs is built without undici support for ${args.path}'); };\nmodule.exports = Object.assign(no, { extractBody: no });\n`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^node:assert$/ }, (args) =>
      shimAssert && args.importer.includes('/node_modules/undici/')
        ? { path: 'assert', namespace: 'prs-assert' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'prs-assert' }, () => ({ contents: ASSERT_SHIM, loader: 'js' }));
  },
};

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so tests running the binary meanwhile never see a half-built tree.
const out = `dist.build-${process.pid}`;
const split = await build({
  entryPoints: { main: 'src/main.ts', sandbox: 'src/sandbox/index.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Inline here only to be carried through the CommonJS step below, which writes the final maps.
  sourcemap: 'inline',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { __PRS_VERSION__: JSON.stringify(version) },
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  plugins: [rewrites, undiciTrims],
});

/**
 * esbuild splits code only in ES module output, but on Node 20 loading ES modules costs more than
 * CommonJS: the first import sets up the ESM loader (~3 ms), and each chunk is resolved, read and
 * linked through it (URL conversions, an async job per module). So each split chunk is transformed
 * into CommonJS: static imports become require() calls, lazy import() becomes a require() in a
 * promise, and dist/package.json says "commonjs". The chunks are also minified (whitespace and
 * syntax; names are kept, and each chunk has a source map for PRS_DEBUG=1's stacks): V8 scans less
 * source at every start. Measured: a small report and `prs --help` ~8% faster on Node 20.
 * "use strict" keeps the semantics the code was bundled with (ES modules are strict).
 */
/**
 * A chunk's exports as esbuild's CommonJS gives them (`__toCommonJS`) are a copy of its exports object,
 * a getter over each getter, and an import() of a chunk (`__toESM`) copies them once more: ~90 modules'
 * worth of copies and double getters at every start. Here the chunk's own exports object is marked as
 * an ES module and handed out as it is, and an import() of a chunk (always so marked) takes it as it is.
 */
const EXPORTS_HELPERS = 'var __prsExports=m=>Object.defineProperty(m,"__esModule",{value:!0}),__prsESM=m=>m;';
for (const file of readdirSync(out, { recursive: true })) {
  if (!file.endsWith('.js')) continue;
  const path = join(out, file);
  const result = await transform(readFileSync(path, 'utf8'), {
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    banner: `'use strict';${EXPORTS_HELPERS}`,
    sourcefile: basename(file), // what the map names for code the conversion adds: the chunk itself
    // The input's inline map (TypeScript → bundle) is chained into this one (TypeScript → chunk).
    sourcemap: 'external',
    sourcesContent: false,
    logLevel: 'warning',
  });
  // A warning here means code that CommonJS cannot carry as written (`import.meta` becomes `{}`):
  // a build that would break at run time fails now instead. (Top-level await is already an error.)
  if (result.warnings.length > 0) {
    rmSync(out, { recursive: true, force: true });
    throw new Error(`build: ${file} does not convert to CommonJS cleanly`);
  }
  // Same-length names, so the map's columns still hold (checked: a chunk's exports must take this form).
  const code = result.code
    .replace('module.exports=__toCommonJS(', 'module.exports=__prsExports(')
    .replaceAll('__toESM(require("./', '__prsESM(require("./');
  if (!code.includes('module.exports=__prsExports(')) {
    rmSync(out, { recursive: true, force: true });
    throw new Error(`build: ${file} no longer sets its exports with __toCommonJS; see EXPORTS_HELPERS`);
  }
  // Node reads the map only when source maps are enabled (src/boot.ts does so under PRS_DEBUG=1, for
  // stack traces that name src/*.ts lines); otherwise the comment costs nothing.
  writeFileSync(path, `${code}//# sourceMappingURL=${basename(path)}.map\n`);
  writeFileSync(`${path}.map`, result.map);
}
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');

/**
 * The CLI's start (main.js, src/main.ts, and every chunk it requires as it loads: the same files for
 * every command) in one file, dist/cli.pack, which the loader (src/boot.ts) reads and compiles as one
 * script: one read and one code cache instead of one per chunk. The chunks stay on disk for PRS_DEBUG.
 */
/**
 * The chunks `file` requires: `lazy`, also those it imports lazily (a require in a promise). Named by
 * their path under dist/ with `/` on any system, as the loader (src/boot.ts) keys them.
 */
const requiredBy = (file, lazy) => {
  const pattern = lazy ? /require\("(\.\/[^"]+)"\)/g : /[\w$]=require\("(\.\/[^"]+)"\)/g;
  return [...readFileSync(join(out, file), 'utf8').matchAll(pattern)].map(([, id]) =>
    posix.join(posix.dirname(file), id),
  );
};
const start = new Set();
const visit = (file) => {
  if (start.has(file)) return;
  start.add(file);
  for (const chunk of requiredBy(file, false)) visit(chunk);
};
visit('main.js');
const wrap = (file) =>
  `${JSON.stringify(file)}: function (exports, require, module, __filename, __dirname) {${readFileSync(join(out, file), 'utf8')}\n}`;
const writePack = (name, files) => writeFileSync(join(out, name), `({\n${files.map(wrap).join(',\n')}\n})\n`);
writePack('cli.pack', [...start]);

/**
 * The body of a command that reaches the service, likewise: dist/<command>.pack holds the chunk of
 * src/commands/<command>.ts and every chunk it requires or imports lazily outside dist/cli.pack, with
 * what the start imports lazily for any command (the session, the service client), except the chunks
 * of features few runs use (APART: a proxy, Redis, Parquet, a terminal's spinner and prompt), which
 * stay files of their own. The loader reads a pack when its command's chunk is first required. A
 * member a run never requires costs its share of one read; each cache holds what a run compiled.
 * dist/program.pack is the commander program (src/cli.ts and what it requires), which a plain report
 * never loads (src/main.ts): only its static requires, not every command's body.
 */
const PACKED = {
  report: 'commands/report',
  diff: 'commands/diff',
  export: 'commands/export',
  program: 'cli',
};
const APART = /^node_modules\/(undici\/index\.js|@redis\/|hyparquet|ora\/|read\/)/;
const chunkOf = Object.fromEntries(
  Object.entries(split.metafile.outputs).map(([path, o]) => [path.slice(out.length + 1), o]),
);
const isEntry = (file) => /^src\/(commands\/[^/]+|cli)\.ts$/.test(chunkOf[file]?.entryPoint ?? '');
const forAnyCommand = [...start].flatMap((file) => requiredBy(file, true)).filter((f) => !isEntry(f));
const packs = {};
for (const [name, source] of Object.entries(PACKED)) {
  const [entry] = Object.keys(chunkOf).filter((f) => chunkOf[f].entryPoint === `src/${source}.ts`);
  if (!entry) throw new Error(`build: no chunk holds src/${source}.ts`);
  const lazy = name !== 'program';
  const members = new Set();
  const reach = (file) => {
    if (members.has(file) || start.has(file)) return;
    if (Object.keys(chunkOf[file]?.inputs ?? {}).some((input) => APART.test(input))) return;
    members.add(file);
    for (const chunk of requiredBy(file, lazy)) reach(chunk);
  };
  for (const file of [entry, ...(lazy ? forAnyCommand : [])]) reach(file);
  writePack(`${name}.pack`, [...members]);
  packs[entry] = `${name}.pack`;
}

/**
 * The fast entry (src/fast.ts: the answer cache's fast path, `--version` when bin's write failed),
 * bin/prs.js's first stop, and the cache's answer it loads only when the cache may be on (src/hit.ts):
 * each one file, everything it imports inside it, where the split chunks above would cost a hit
 * resolving, reading and compiling many files (docs/performance.md). What they share with the CLI is
 * compiled a second time only when they do not answer. Nothing in them may load heavy modules at their
 * start (checked below).
 */
/**
 * The fast path never draws a table (a terminal or `-f table` goes to the CLI): the renderer's table
 * stays out.
 */
const STUBBED = {
  table:
    "export const renderTable = () => { throw new Error('prs: the answer cache fast path draws no table'); };\n",
};
const noTable = {
  name: 'no-table',
  setup(b) {
    b.onResolve({ filter: /^\.\/table\.js$/ }, (args) =>
      args.importer.endsWith('src/render/writer.ts') ? { path: 'table', namespace: 'prs-stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'prs-stub' }, (args) => ({
      contents: STUBBED[args.path],
      loader: 'js',
    }));
  },
};
const single = {
  outdir: out,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: "'use strict';" },
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  define: { __PRS_VERSION__: JSON.stringify(version) },
  // import() as a require in a promise: Node's ES module loader costs a start milliseconds.
  supported: { 'dynamic-import': false },
};
const hit = await build({ ...single, entryPoints: { hit: 'src/hit.ts' }, plugins: [noTable] });

/**
 * The fast entry, with the CLI's loader (src/boot.ts) in it, built last: the loader keeps V8's code
 * cache per build, named by a digest of every file built above, since V8 checks a cache against its
 * source's length only. fast.ts's import of hit.ts stays a require of dist/hit.js.
 */
const digest = createHash('sha256');
for (const file of readdirSync(out, { recursive: true }).map(String).sort()) {
  if (!file.endsWith('.js') && !file.endsWith('.pack')) continue;
  digest.update(file);
  digest.update(readFileSync(join(out, file)));
}
const hitApart = {
  name: 'hit-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/hit\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};
const fast = await build({
  ...single,
  entryPoints: { fast: 'src/fast.ts' },
  plugins: [hitApart, noTable],
  define: {
    ...single.define,
    __PRS_BUILD__: JSON.stringify(digest.digest('hex').slice(0, 16)),
    // A string: an object here would be a module of its own in the source map.
    __PRS_PACKS__: JSON.stringify(JSON.stringify(packs)),
  },
});
const heavy = [fast, hit]
  .flatMap((b) => Object.keys(b.metafile.inputs))
  .filter((f) => /node_modules\/(undici|ora|commander)\//.test(f));
if (heavy.length > 0) {
  rmSync(out, { recursive: true, force: true });
  throw new Error(
    `build: the fast entry (dist/fast.js, dist/hit.js) would bundle ${heavy[0]}: import it lazily`,
  );
}

const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
