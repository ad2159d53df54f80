// `npm run demo`: a guided tour against the built-in sandbox. Starts the sandbox on a free port, signs in
// with a throwaway config dir, prints an index report, exports a CSV zip, shows the answer cache, the
// rate-limit window, a dry-run plan and a diff across a rebalance, lists the files, then cleans up.
// Everything runs on loopback; nothing is left running or written outside a temporary folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'prs.js');
if (!existsSync(join(root, 'dist', 'main.js'))) {
  console.error('demo: dist/ is missing — run `npm ci` (or `npm run build`) first');
  process.exit(1);
}
const { startSandbox, loginArgs } = await import(join(root, 'dist', 'sandbox.js'));

const work = mkdtempSync(join(tmpdir(), 'prs-demo-'));
const exportsDir = join(work, 'exports');
mkdirSync(exportsDir);
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[22m` : s);
const sandbox = await startSandbox({ port: 0 });
const user = sandbox.users[0];
const env = {
  ...process.env,
  PRS_CONFIG_DIR: join(work, 'config'),
  PRS_CACHE_DIR: join(work, 'cache'),
  PRS_CLIENT_SECRET: sandbox.clientSecret,
  PRS_PROFILE: undefined,
  PRS_TOKEN: undefined,
};

/** Runs prs like a user at a terminal would, echoing the command first. */
function prs(args, { input, show = args } = {}) {
  console.log(`\n${bold(`$ prs ${show.join(' ')}`)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env,
      stdio: [input ? 'pipe' : 'ignore', 'inherit', 'inherit'],
    });
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`prs ${args[0]} exited with ${code}`)),
    );
  });
}

let failed = false;
try {
  console.log(
    `Sandbox running at ${sandbox.url} (realm ${sandbox.realm}, user ${user.username}, tenant ${user.tenant})`,
  );
  console.log(`Config and exports go to ${work} (removed at the end).`);
  const login = loginArgs(sandbox, user);
  await prs(login, {
    input: user.password,
    show: [...login.slice(0, -1), '--password-stdin   # password piped in, secret from PRS_CLIENT_SECRET'],
  });
  await prs(['auth', 'status']);
  await prs(['report', '42', '--type', 'index', '--date', '2023-06-29', '--format', 'table']);
  // Portfolio 77's constituents the Friday before a rebalance (kept in the answer cache for the diff
  // at the end: the demo stays within the sandbox's 4 requests a minute).
  await prs([
    '--cache',
    '7d',
    'report',
    '77',
    '--type',
    'constituent.close',
    '--date',
    '2024-03-15',
    '--format',
    'csv',
    '--fields',
    'isin,securityName,securityTicker,indexWeighting',
  ]);
  await prs([
    'export',
    '42',
    '--type',
    'constituent.close',
    '--date',
    '2023-06-30',
    '--format',
    'csv',
    '--extract',
    '--dir',
    exportsDir,
  ]);
  // The rate limit spent once: a past date's answer kept for 7 days (-v shows the hit), the window in
  // view, and a plan before a range is sent.
  const cached = ['report', '42', '--type', 'index', '--date', '2023-06-29', '--format', 'csv'];
  await prs(['--cache', '7d', ...cached, '--fields', 'indexName,indexValue']);
  await prs(['--cache', '7d', '-v', ...cached, '--fields', 'indexName,indexValue']);
  await prs(['quota']);
  await prs([
    '--cache',
    '7d',
    'report',
    '42',
    '1',
    '--type',
    'index',
    '--from',
    '2023-06-26',
    '--to',
    '2023-06-30',
    '--dry-run',
  ]);
  // What the rebalance changed: one security left, one entered, weights and shares moved (the dual
  // listing keyed by its two tickers); weight changes in basis points too.
  await prs([
    '--cache',
    '7d',
    'diff',
    '77',
    '--type',
    'constituent.close',
    '--from',
    '2024-03-15',
    '--to',
    '2024-03-18',
    '--fields',
    'securityName,indexShares,indexWeighting',
    '--format',
    'table',
  ]);
  console.log(`\n${bold(`$ ls -l ${exportsDir}`)}`);
  for (const name of readdirSync(exportsDir).sort()) {
    console.log(`${String(statSync(join(exportsDir, name)).size).padStart(8)}  ${name}`);
  }
  const { nextSteps, prsOnPath } = await import('./next-steps.mjs');
  console.log(`\n${nextSteps(realpathSync(bin), prsOnPath())}`);
} catch (err) {
  failed = true;
  console.error(`demo failed: ${err.message}`);
} finally {
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
