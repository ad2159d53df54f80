// V8's code cache for prs's own bundle (dist/), kept in the user's cache directory. Compiling dist/'s
// JavaScript is most of a short run's own time (a small report: ~16 ms of ~65 on Node 20, before its
// one request); a cache made at the end of a run holds every function that run compiled, so the next
// run of the same build skips compiling them. Node 22's module.enableCompileCache() keeps only what is
// compiled up front, and Node 20 has none. CommonJS like bin/prs.js, loaded by it before the CLI.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

/**
 * `<cache dir>/code/<build id>-<node version>-<arch>`: a new build, Node or CPU gets a new place.
 * The cache directory is settings.ts's (bin/prs.js prsDirs).
 */
function codeCacheDir(cacheDir, buildId) {
  return path.join(cacheDir, 'code', `${buildId}-${process.version}-${process.arch}`);
}

/**
 * A directory this user may take code from: missing (it is created private on the first write), or
 * this user's and closed to others. Bytecode is code: one that someone else can write is not used.
 */
function mayUse(dir) {
  let st;
  try {
    st = fs.statSync(dir);
  } catch (err) {
    return err.code === 'ENOENT';
  }
  if (!st.isDirectory()) return false;
  return typeof process.getuid !== 'function' || (st.uid === process.getuid() && (st.mode & 0o077) === 0);
}

/** The `require` Node gives a CommonJS module (lib/internal/modules/helpers makeRequireFunction). */
function requireFor(mod, main) {
  const require = (id) => mod.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  require.main = main;
  require.cache = Module._cache;
  require.extensions = Module._extensions;
  return require;
}

/**
 * V8 checks a cache's version, flags, source length and size, not its bytes (release builds verify no
 * checksum), and bytecode damaged on disk could crash a run: each file starts with the CRC-32 of
 * the rest, as Node's own compile cache does.
 */
const crc32 = (data) => require('node:zlib').crc32(data);

/** A cache file's data when its checksum holds; else undefined (the script is compiled, the file rewritten). */
function readChecked(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined; // not cached yet
  }
  const data = bytes.subarray(4);
  return bytes.length > 4 && bytes.readUInt32LE(0) === crc32(data) ? data : undefined;
}

/** The cache of each script compiled without one, written atomically; any failure leaves it unwritten. */
function save(dir, fresh) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!mayUse(dir)) return;
    // Caches of other builds for this Node are dead weight once this one is written.
    const codeDir = path.dirname(dir);
    const suffix = `-${process.version}-${process.arch}`;
    for (const other of fs.readdirSync(codeDir))
      if (other !== path.basename(dir) && other.endsWith(suffix))
        fs.rmSync(path.join(codeDir, other), { recursive: true, force: true });
    for (const [file, script] of fresh) {
      const temp = `${file}.${process.pid}.tmp`;
      try {
        const data = script.createCachedData();
        const head = Buffer.alloc(4);
        head.writeUInt32LE(crc32(data));
        fs.writeFileSync(temp, Buffer.concat([head, data]), { mode: 0o600 });
        fs.renameSync(temp, file);
      } catch {
        fs.rmSync(temp, { force: true });
      }
    }
  } catch {
    // A read-only or full disk: the next run compiles, as this one did.
  }
}

/**
 * From now on, the files under `distDir` compile through the code cache. Never throws, and a cache
 * that does not fit (another V8, other flags, a damaged file) is simply not used: V8 checks it and
 * the file is compiled, then its cache written anew at exit. Off with PRS_DEBUG (its stack traces
 * need Node's own compile, which registers the source maps) and when the build has no id.
 */
function useCodeCache(distDir, cacheDir, env, main) {
  try {
    install(distDir, cacheDir, env, main);
  } catch {
    // An unreadable dist/ or cache directory: compiled as Node does.
  }
}

function install(distDir, cacheDir, env, main) {
  if (cacheDir === undefined || env.PRS_DEBUG === '1' || env.PRS_DEBUG === 'true') return;
  let buildId;
  try {
    buildId = fs.readFileSync(path.join(distDir, 'build-id'), 'utf8').trim();
  } catch {
    return;
  }
  const dir = codeCacheDir(cacheDir, buildId);
  if (!mayUse(dir)) return;
  const vm = require('node:vm');
  const fresh = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (!filename.startsWith(distDir + path.sep)) return compile.call(this, content, filename);
    const file = path.join(dir, `${path.relative(distDir, filename).replaceAll(path.sep, '~')}.v8`);
    const cachedData = readChecked(file);
    let script;
    try {
      script = new vm.Script(Module.wrap(content), {
        filename,
        cachedData,
        importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      });
    } catch {
      return compile.call(this, content, filename); // Node's own error for a broken file
    }
    if (!cachedData || script.cachedDataRejected) fresh.push([file, script]);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(
      this.exports,
      this.exports,
      requireFor(this, main),
      this,
      filename,
      path.dirname(filename),
    );
  };
  // V8 takes a cache only under the flags it was made with, and the CLI sets two before its first
  // HTTP client (src/entry.ts: for undici's WebAssembly and large bodies), calling this first: what was
  // compiled until then is cached now, the rest at exit. dist/hit.js compiled before a report it left
  // to the CLI has run only its first steps: its cache waits for a run it answers.
  globalThis[Symbol.for('prs.beforeV8Flags')] = () => {
    save(
      dir,
      fresh.splice(0).filter(([file]) => !file.endsWith(`${path.sep}hit.js.v8`)),
    );
  };
  process.once('exit', () => {
    if (fresh.length > 0) save(dir, fresh);
  });
}

module.exports = { codeCacheDir, useCodeCache };
