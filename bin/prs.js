#!/usr/bin/env node
import module from 'node:module';
import v8 from 'node:v8';

// undici parses HTTP with a WebAssembly build of llhttp; V8's optimising tier compiles it in the
// background for ~35 MB of peak memory and no gain for a short-lived CLI. Liftoff alone keeps
// `prs export` under 100 MB whatever the file size.
v8.setFlagsFromString('--liftoff-only');
// Node >= 22.1 caches compiled bytecode between runs; on Node 20 this is a no-op.
module.enableCompileCache?.();
await import('../dist/main.js');
