// The CLI's loader (in dist/fast.js): each script compiled with the bytecode an earlier run left in
// `<cache dir>/code/<build>-<node>-<arch>/`, written after the run so that it holds what it compiled lazily.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

declare const __PRS_BUILD__: string;
/** JSON: a command's chunk → the pack holding its body (scripts/build.mjs). */
declare const __PRS_PACKS__: string;

// Set before anything compiles (V8 takes a cache only under its flags); without the checksum release
// V8 takes a damaged cache. A regular expression is compiled to machine code at its second run by
// default: a start runs some ten of them a few times each, for nothing; a hot one still is, later.
// Its bytecode's peephole pass costs more than it saves for the few runs a start makes of each.
const V8_FLAGS = [
  '--regexp-tier-up-ticks=100',
  '--no-regexp-peephole-optimization',
  '--no-wasm-tier-up',
  '--no-wasm-dynamic-tiering',
  '--wasm-lazy-compilation',
  '--semi-space-growth-factor=1',
  '--verify-snapshot-checksum',
  ...feedbackLater(Number(process.versions.node.split('.')[0])),
];

/**
 * A function's feedback vector (its inline caches) made only after more calls than V8's default: a start
 * calls most of its functions a few times each, where making the vectors costs more than they save; a
 * hot function still gets one early in a long run. Node 20's V8 counts bytecode run instead of calls;
 * on Node 21, unchecked, nothing is set (V8 prints an unknown flag on stderr).
 */
function feedbackLater(major: number): string[] {
  if (major === 20) return ['--interrupt-budget-factor-for-feedback-allocation=32'];
  return major >= 22 ? ['--invocation-count-for-feedback-allocation=32'] : [];
}

/** Node's builtins' compiled code is refused once the flags are set: what a run requires comes before. */
const BUILTINS = ['process', 'timers/promises', 'net', 'diagnostics_channel', 'vm'];
const EXPORT_BUILTINS = ['fs/promises', 'crypto', 'zlib'];

export interface CodeCache {
  /** Scripts compiled without a cache V8 took: then save() writes the caches. */
  readonly unsaved: number;
  /** Every script's cache, not only the unsaved: cli.pack's gains what this command compiled. */
  save(write: (path: string, data: Uint8Array) => void): void;
}

type Entry = { start(cache?: CodeCache): void };

/** `cacheDir`: settings.ts's, from the fast entry (src/fast.ts); undefined without one. */
export function boot(cacheDir: string | undefined, debug: boolean): void {
  const wanted = process.argv.includes('export') ? [...BUILTINS, ...EXPORT_BUILTINS] : BUILTINS;
  for (const id of wanted) process.getBuiltinModule(`node:${id}`);
  // main.ts writes through both on every run: their streams are made before the flags too.
  void process.stdout;
  void process.stderr;
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  for (const flag of V8_FLAGS) setFlagsFromString(flag);
  const main = join(__dirname, 'main.js');
  if (debug) {
    // Stack traces mapped to src/*.ts need Node's own compile, which reads the source maps.
    process.setSourceMapsEnabled(true);
    (process.getBuiltinModule('node:module').createRequire(main)(main) as Entry).start();
    return;
  }
  let dir = cacheDir && join(cacheDir, 'code', `${__PRS_BUILD__}-${process.version}-${process.arch}`);
  if (dir && !mayUse(dir)) dir = undefined;
  const loader = codeLoader(__dirname, dir);
  loader.pack('cli.pack');
  (loader.load('', './main.js') as Entry).start(loader);
}

/** Missing (made 0700 on the first write), or this user's and not writable by others: bytecode is code. */
function mayUse(dir: string): boolean {
  try {
    const st = statSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

const readOrUndefined = (file: string) => {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
};

type Wrapper = (...args: unknown[]) => void;
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

// Modules are keyed by their path under dist/ with `/` (`chunks/x.js`, as scripts/build.mjs names them),
// joined as strings: ~200 requires a run made path.join hot enough for TurboFan, CPU on V8's threads.
function codeLoader(dist: string, dir: string | undefined) {
  const { Script } = process.getBuiltinModule('node:vm');
  const modules = new Map<string, { exports: unknown }>();
  const packed = new Map<string, Wrapper>();
  /** Per directory key: Node's require from there (it resolves a name alike for every file) and its path. */
  const dirs = new Map<string, { node?: NodeJS.Require; path: string }>();
  const scripts: [string, InstanceType<typeof Script>][] = [];
  const fileOf = (key: string) => `${dist}${sep}${sep === '/' ? key : key.replaceAll('/', sep)}`;
  let unsaved = 0;
  const compile = (key: string, script: (source: string) => string): unknown => {
    const file = fileOf(key);
    let source: string;
    try {
      source = readFileSync(file, 'utf8');
    } catch (err) {
      throw Object.assign(new Error(`Cannot find module './${key}'`), {
        code: 'MODULE_NOT_FOUND',
        cause: err,
      });
    }
    const cacheFile = dir && `${dir}${sep}${key.replaceAll('/', '~')}`;
    const cachedData = cacheFile ? readOrUndefined(cacheFile) : undefined;
    const compiled = new Script(script(source), { filename: file, cachedData });
    if (cacheFile) {
      scripts.push([cacheFile, compiled]);
      if (!cachedData || compiled.cachedDataRejected) unsaved++;
    }
    return compiled.runInThisContext();
  };
  const packOf = new Map(Object.entries<string>(JSON.parse(__PRS_PACKS__)));
  /** `id` (`./x.js`) required from the directory `from` (a key's: `` or `chunks`). */
  const load = (from: string, id: string): unknown => {
    const key = from ? `${from}/${id.slice(2)}` : id.slice(2);
    let module = modules.get(key);
    if (module) return module.exports;
    const body = packOf.get(key);
    if (body) {
      packOf.delete(key);
      pack(body);
    }
    const wrapper = packed.get(key) ?? (compile(key, wrap) as Wrapper);
    module = { exports: {} };
    modules.set(key, module);
    const slash = key.lastIndexOf('/');
    const here = slash < 0 ? '' : key.slice(0, slash);
    const file = fileOf(key);
    const d = dirs.get(here) ?? { path: here ? fileOf(here) : dist };
    dirs.set(here, d);
    // Built-ins straight from Node, whose require costs far more per call (a report makes ~40); a
    // package (jq-web) through a require made at its first use.
    const require = (id: string) => {
      if (id.startsWith('./')) return load(here, id);
      const builtin = process.getBuiltinModule(id);
      if (builtin) return builtin;
      d.node ??= process.getBuiltinModule('node:module').createRequire(file);
      return d.node(id);
    };
    wrapper.call(module.exports, module.exports, require, module, file, d.path);
    return module.exports;
  };
  /** A file of wrappers by key (scripts/build.mjs: dist/cli.pack, dist/<command>.pack), compiled as one script. */
  const pack = (key: string) => {
    for (const [member, wrapper] of Object.entries(compile(key, (s) => s) as Record<string, Wrapper>))
      packed.set(member, wrapper);
  };
  return {
    load,
    pack,
    get unsaved() {
      return unsaved;
    },
    save(write: (path: string, data: Uint8Array) => void) {
      if (!dir || unsaved === 0) return;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        if (!mayUse(dir)) return;
        // Other builds' caches for this Node are dead weight once this one is written.
        const suffix = `-${process.version}-${process.arch}`;
        for (const other of readdirSync(dirname(dir)))
          if (other !== basename(dir) && other.endsWith(suffix))
            rmSync(join(dirname(dir), other), { recursive: true, force: true });
      } catch {
        return; // a read-only or full disk: the next run compiles, as this one did
      }
      unsaved = 0;
      for (const [file, script] of scripts.splice(0)) {
        try {
          write(file, script.createCachedData());
        } catch {}
      }
    },
  };
}
