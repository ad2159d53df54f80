import { setFlagsFromString } from 'node:v8';

// WebAssembly (undici's llhttp, jq) stays in V8's baseline tier: the optimising tier costs a
// short-lived CLI memory and CPU it never earns back. Not `--liftoff-only`: Node 24's V8 reads that
// one only at start-up, while these two are read whenever a module compiles, on Node 20 and 24.
export function wasmBaselineOnly(): void {
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
}
