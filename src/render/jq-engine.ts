/**
 * jq-web, loaded with require: its module value is a Promise, which an `import()` (in the CommonJS
 * bundle as under vitest) would try to adopt as a thenable. `__filename` is this chunk's in the bundle
 * and this file's under vitest; from either, node_modules/jq-web resolves (it reads its .wasm beside
 * itself, so it stays a dependency outside the bundle). render/jq.ts imports this module lazily.
 */
import { createRequire } from 'node:module';
import { wasmBaselineOnly } from '../v8.js';

declare const __filename: string;

export interface JqWeb {
  /** jq over `input` as text (as `printf %s input | jq flags filter`): its stdout less the last newline. */
  raw(input: string | Uint8Array, filter: string, flags?: string[]): string | undefined;
}

export function loadJq(): Promise<JqWeb> {
  // Set before jq's module compiles (the figures: docs/performance.md).
  wasmBaselineOnly();
  const require = createRequire(__filename);
  return require('jq-web') as Promise<JqWeb>;
}
