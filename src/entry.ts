// The bundle's entry (dist/main.js), started by the loader (src/boot.ts): run the CLI, keep the
// compiled code for the next run, then exit with the contract's code.
import type { CodeCache } from './boot.js';

// No top-level await: the build turns this bundle into CommonJS (see scripts/build.mjs).
export function start(cache?: CodeCache): void {
  import('./main.js').then(
    async ({ main }) => {
      const code = await main(process.argv, process.env);
      if (cache?.unsaved) await saveCode(cache).catch(() => {});
      process.exit(code);
    },
    (err: Error) => {
      const reason = String(err?.message).split('\n')[0];
      process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
      process.exit(1);
    },
  );
}

async function saveCode(cache: CodeCache): Promise<void> {
  const { replaceFile } = await import('./fs/atomic.js');
  cache.save((path, data) => replaceFile(path, data, { mode: 0o600, durable: false }));
}
