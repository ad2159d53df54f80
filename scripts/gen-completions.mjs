// Writes completions/prs.{bash,zsh,fish} from src/completion/scripts.ts.
// `node scripts/gen-completions.mjs --check` only compares, exiting 1 when a file is out of date.
// src/ is TypeScript and the scripts are not exported from dist/, so bundle them on the fly.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

const result = await build({
  stdin: {
    contents: "export { completionScript, SHELLS } from './src/completion/scripts.ts';\n",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  logLevel: 'warning',
});
const dir = mkdtempSync(join(tmpdir(), 'prs-gen-completions-'));
let generated;
try {
  const file = join(dir, 'generate.mjs');
  writeFileSync(file, result.outputFiles[0].contents);
  const { completionScript, SHELLS } = await import(pathToFileURL(file).href);
  generated = SHELLS.map((shell) => [`completions/prs.${shell}`, completionScript(shell)]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

let stale = 0;
for (const [path, text] of generated) {
  const target = join(root, path);
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  if (check) {
    stale++;
    console.error(`${path} is out of date; run: npm run completions`);
  } else {
    writeFileSync(target, text);
    console.error(`wrote ${path}`);
  }
}
process.exit(stale ? 1 : 0);
