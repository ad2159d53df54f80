#!/usr/bin/env node
import module from 'node:module';

// Node >= 22.1 caches compiled bytecode between runs; on Node 20 this is a no-op.
module.enableCompileCache?.();
await import('../dist/main.js');
