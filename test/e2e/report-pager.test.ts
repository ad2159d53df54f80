/**
 * The pager (CLI.md, report): on a terminal (tmux), a table taller than the screen goes through
 * PRS_PAGER, else PAGER, else `less -FRX`; PRS_PAGER= (empty) or --no-pager turns it off; never when
 * stdout is not a terminal; quitting the pager early is exit 0. The built binary against the sandbox.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';
import { HAS_TMUX, Terminal } from '../helpers/tmux.js';

const HAS_LESS = spawnSync('less', ['--version'], { stdio: 'ignore' }).status === 0;
const DATE = '2024-05-03';
/** Portfolio 1: 50 constituents, a table taller than a 24-line terminal. */
const TALL = ['report', '1', '-t', 'constituent.close', '-d', DATE, '-f', 'table'];
const SHORT = ['report', '42', '-t', 'index', '-d', DATE, '-f', 'table'];
/** A pager that shows which one ran: each line it is given, marked. */
const marking = (mark: string) => `sed s/^/${mark}:/`;

describe.skipIf(!HAS_TMUX)('the pager on a terminal (tmux)', () => {
  const setup = useLoggedIn('prs-pager-', { rateLimit: '1000/1s' });
  let term: Terminal | undefined;
  afterEach(() => {
    term?.close();
    term = undefined;
  });

  /** prs in a 24-line terminal to its end: the exit code and the screen's lines. */
  const run = async (args: string[], env: Record<string, string>) => {
    term = await Terminal.open({ args, env: { ...setup.env, ...env }, width: 200, height: 24 });
    const code = await term.exitCode({ timeoutMs: 20_000 });
    return { code, lines: (await term.screen()).split('\n').filter((l) => l.trim() !== '') };
  };

  it.each([
    ['PRS_PAGER', { PRS_PAGER: marking('Q'), PAGER: marking('P') }, 'Q'],
    ['PAGER when PRS_PAGER is unset', { PAGER: marking('P') }, 'P'],
  ])('a tall table goes through %s', async (_what, env, mark) => {
    const { code, lines } = await run(TALL, env);
    expect(code).toBe(0);
    const table = lines.filter((l) => /[│┌├└]/.test(l));
    expect(table.length).toBeGreaterThan(10);
    for (const l of table) expect(l.startsWith(`${mark}:`), l).toBe(true);
  });

  it.each([
    ['PRS_PAGER set empty', TALL, { PRS_PAGER: '', PAGER: marking('P') }],
    ['--no-pager', [...TALL, '--no-pager'], { PRS_PAGER: marking('Q') }],
    ['a table that fits the screen', SHORT, { PRS_PAGER: marking('Q') }],
  ])('%s: written straight', async (_what, args, env) => {
    const { code, lines } = await run(args, env);
    expect(code).toBe(0);
    const table = lines.filter((l) => /[│┌├└]/.test(l));
    expect(table.length).toBeGreaterThan(0);
    for (const l of table) expect(l).toMatch(/^[│┌├└]/);
  });

  it.skipIf(!HAS_LESS)('less -FRX by default; quitting it early (q) is exit 0', async () => {
    term = await Terminal.open({ args: TALL, env: setup.env, width: 200, height: 24 });
    // less shows the first screen and waits at its prompt (`:`) for more: prs is still running.
    const screen = await term.waitFor(
      (s) => s.includes('isin') && s.split('\n').some((l) => l.trim() === ':'),
    );
    expect(screen.split('\n').filter((l) => l.startsWith('│')).length).toBeLessThan(50);
    await term.type('q');
    expect(await term.exitCode({ timeoutMs: 20_000 })).toBe(0);
  });
});

describe('never when stdout is not a terminal', () => {
  const setup = useLoggedIn('prs-pager-pipe-', { rateLimit: '1000/1s' });
  it('a pipe gets the table itself', async () => {
    const r = await runPrs(TALL, { env: { ...setup.env, PRS_PAGER: marking('Q') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^┌/);
    expect(r.stdout).not.toMatch(/^Q:/m);
  });
});
