// Writes completions/prs.{bash,zsh,fish} from the commander program (src/cli.ts and src/commands/define.ts).
// `node scripts/gen-completions.mjs --check` only compares, exiting 1 when a file is out of date.
// src/ is TypeScript and buildProgram is not exported from dist/, so bundle the generator and the
// program on the fly.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

const result = await build({
  // The generator and the program it is handed (the CLI's own, whose actions never run here).
  stdin: {
    contents:
      "export { generateAll, COMPLETION_FILES } from './src/completion/generate.ts';\n" +
      "export { buildProgram } from './src/cli.ts';\n" +
      "export { OPTION_VALUES } from './src/commands/completion-values.ts';\n",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  logLevel: 'warning',
  // commander is CommonJS and calls require(); give the ESM bundle a real one.
  banner: {
    js: "import { createRequire as __prsRequire } from 'node:module'; const require = __prsRequire(import.meta.url);",
  },
});
const dir = mkdtempSync(join(tmpdir(), 'prs-gen-completions-'));
let generated;
try {
  const file = join(dir, 'generate.mjs');
  writeFileSync(file, result.outputFiles[0].contents);
  const { buildProgram, generateAll, COMPLETION_FILES, OPTION_VALUES } = await import(
    pathToFileURL(file).href
  );
  const program = buildProgram({ version: '0.0.0', run: async () => {} });
  generated = Object.entries(generateAll(program, OPTION_VALUES)).map(([shell, text]) => [
    COMPLETION_FILES[shell],
    text,
  ]);
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
