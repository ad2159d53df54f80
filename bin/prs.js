#!/usr/bin/env node
// Node >= 22.1 caches compiled bytecode between runs; on Node 20 this is a no-op.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/main.js');
