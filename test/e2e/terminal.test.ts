/**
 * prs in a real terminal (tmux): the login prompts with hidden secrets, a report table on screen, and
 * the progress line of a range. The BUILT binary (`npm run build` first) against the in-process
 * sandbox; skipped when tmux is not installed.
 */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';
import { HAS_TMUX, Terminal, type TerminalOptions } from '../helpers/tmux.js';

// Distinctive secrets, so "never on the screen" cannot be confused with any other text.
const PASSWORD = 'Pw-hidden-7q2';
const CLIENT_SECRET = 'Cs-hidden-9x4';
const USER = { username: 'tess', password: PASSWORD, tenant: 'tess-tenant' };

/** Lines of the drawn table (box characters at both ends). */
const tableLines = (screen: string) => screen.split('\n').filter((l) => /^[┌│├└]/.test(l));
/** Screen columns of the cell separators in a table line (the text is ASCII and box characters). */
const separators = (line: string) => [...line].flatMap((ch, i) => (/[│┼┬┴├┤┌┐└┘]/.test(ch) ? [i] : []));
const lastLine = (screen: string) => screen.split('\n').at(-1) ?? '';

describe.skipIf(!HAS_TMUX)('prs in a terminal (tmux)', () => {
  /** `env`: a profile logged in non-interactively (the table and progress tests). */
  const { sandbox, tmp, env } = useLoggedIn(
    'prs-terminal-e2e-',
    { rateLimit: '2/3s', clientSecret: CLIENT_SECRET, users: [USER] },
    // Tables taller than the screen would go through the pager: report-pager.test.ts tests that.
    { PRS_PAGER: '' },
  );
  let term: Terminal | undefined;
  const open = async (o: TerminalOptions) => {
    term = await Terminal.open(o);
    return term;
  };

  afterEach(() => {
    term?.close();
    term = undefined;
  });

  /** The prompts of `prs login` with nothing preset, in order (src/commands/login.ts), and the answers. */
  const loginAnswers = (): [prompt: string, answer: string, hidden?: true][] => [
    ['Base URL:', sandbox.url],
    ['Auth URL:', sandbox.authUrl],
    ['Realm:', sandbox.realm],
    ['Client id:', sandbox.clientId],
    ['Client secret:', CLIENT_SECRET, true],
    ['Username:', USER.username],
    ['Password:', PASSWORD, true],
    ['Tenant:', USER.tenant],
  ];

  it('login asks for every missing value, echoes neither secret, and signs in', async () => {
    const dirs = {
      PRS_CONFIG_DIR: join(tmp.path, 'fresh-config'),
      PRS_CACHE_DIR: join(tmp.path, 'fresh-cache'),
    };
    const t = await open({ args: ['login'], env: dirs });
    for (const [prompt, answer, hidden] of loginAnswers()) {
      await t.waitFor((s) => lastLine(s) === prompt);
      if (hidden) {
        // Key by key with a look at the screen after each: the typed part must never show.
        for (const ch of answer) {
          await t.type(ch);
          expect(lastLine(await t.screen())).toBe(prompt);
        }
      } else {
        await t.type(answer);
        // A visible answer echoes: proof that the prompt reads the keys typed into this terminal.
        await t.waitFor((s) => lastLine(s) === `${prompt} ${answer}`);
      }
      await t.press('Enter');
    }
    const done = await t.waitFor('✓ Logged in');
    expect(await t.exitCode()).toBe(0);

    const port = new URL(sandbox.authUrl).host;
    expect(done).toContain(`✓ Logged in to ${port} as tess (profile default, tenant tess-tenant)`);
    // After Enter the secret lines stay bare; the next prompt followed, so every echo would be on screen.
    const lines = done.split('\n');
    expect(lines).toContain('Client secret:');
    expect(lines).toContain('Password:');
    expect(lines).toContain(`Username: ${USER.username}`);
    for (const s of t.screens) {
      expect(s).not.toContain(PASSWORD);
      expect(s).not.toContain(CLIENT_SECRET);
    }
    // The password is stored nowhere (no --save-password); the client secret only with the session
    // in the private config file, as refresh grants need it.
    for (const f of readdirSync(dirs.PRS_CONFIG_DIR, { recursive: true, withFileTypes: true })) {
      if (!f.isFile()) continue;
      const text = readFileSync(join(f.parentPath, f.name), 'utf8');
      expect(text).not.toContain(PASSWORD);
      if (f.name !== 'config.json') expect(text).not.toContain(CLIENT_SECRET);
    }
    const stored = JSON.parse(readFileSync(join(dirs.PRS_CONFIG_DIR, 'config.json'), 'utf8'));
    expect(stored.profiles.default.secrets).toEqual({ clientSecret: CLIENT_SECRET });

    const status = await runPrs(['auth', 'status'], { env: { ...dirs, HOME: tmp.path } });
    expect(status.code, status.stderr).toBe(0);
  });

  it('login again on a profile that keeps the client secret uses it: asks for the password only', async () => {
    const dirs = {
      PRS_CONFIG_DIR: join(tmp.path, 'again-config'),
      PRS_CACHE_DIR: join(tmp.path, 'again-cache'),
    };
    cpSync(env.PRS_CONFIG_DIR!, dirs.PRS_CONFIG_DIR, { recursive: true });
    const t = await open({ args: ['login'], env: dirs });
    await t.waitFor((s) => lastLine(s) === 'Password:');
    await t.type(PASSWORD);
    await t.press('Enter');
    await t.waitFor('✓ Logged in');
    expect(await t.exitCode()).toBe(0);
    for (const s of t.screens) expect(s).not.toContain('Client secret:');
    t.close();
    // PRS_CLIENT_SECRET still overrides the kept one: a wrong one is refused by the token service.
    const wrong = await open({ args: ['login'], env: { ...dirs, PRS_CLIENT_SECRET: 'not-the-secret' } });
    await wrong.waitFor((s) => lastLine(s) === 'Password:');
    await wrong.type(PASSWORD);
    await wrong.press('Enter');
    expect(await wrong.exitCode()).toBe(4);
    const stored = JSON.parse(readFileSync(join(dirs.PRS_CONFIG_DIR, 'config.json'), 'utf8'));
    expect(stored.profiles.default.secrets).toEqual({ clientSecret: CLIENT_SECRET });
  });

  it('login keeps answers pasted ahead of their prompts, and shows the visible ones, never a secret', async () => {
    const dirs = {
      PRS_CONFIG_DIR: join(tmp.path, 'paste-config'),
      PRS_CACHE_DIR: join(tmp.path, 'paste-cache'),
    };
    const t = await open({ args: ['login'], env: dirs });
    await t.waitFor((s) => lastLine(s) === 'Base URL:');
    // All eight answers in one paste: they reach prs in one read, while the first prompt is open.
    await t.type(
      loginAnswers()
        .map(([, answer]) => `${answer}\r`)
        .join(''),
    );
    const done = await t.waitFor('✓ Logged in');
    expect(await t.exitCode()).toBe(0);
    expect(done.split('\n').slice(0, 8)).toEqual(
      loginAnswers().map(([prompt, answer, hidden]) => (hidden ? prompt : `${prompt} ${answer}`)),
    );
    for (const s of t.screens) {
      expect(s).not.toContain(PASSWORD);
      expect(s).not.toContain(CLIENT_SECRET);
    }
  });

  it('Ctrl-C at the hidden "Client secret:" prompt is an interrupt: exit 130, no internal error', async () => {
    const dirs = { PRS_CONFIG_DIR: join(tmp.path, 'int-config'), PRS_CACHE_DIR: join(tmp.path, 'int-cache') };
    const t = await open({ args: ['login'], env: dirs });
    for (const [prompt, answer] of loginAnswers().slice(0, 4)) {
      await t.waitFor((s) => lastLine(s) === prompt);
      await t.type(answer);
      await t.press('Enter');
    }
    await t.waitFor((s) => lastLine(s) === 'Client secret:');
    await t.type('Cs-');
    await t.press('C-c');
    expect(await t.exitCode()).toBe(130);
    for (const s of t.screens) expect(s).not.toMatch(/internal error|please report/);
  });

  it('a refused password asks again for the password only; the other answers are kept', async () => {
    const dirs = {
      PRS_CONFIG_DIR: join(tmp.path, 'retry-config'),
      PRS_CACHE_DIR: join(tmp.path, 'retry-cache'),
    };
    const t = await open({ args: ['login'], env: dirs });
    for (const [prompt, answer] of loginAnswers()) {
      await t.waitFor((s) => lastLine(s) === prompt);
      await t.type(prompt === 'Password:' ? 'wrong-one' : answer);
      await t.press('Enter');
    }
    await t.waitFor((s) => s.includes('Sorry, try again.') && lastLine(s) === 'Password:');
    await t.type(PASSWORD);
    await t.press('Enter');
    const done = await t.waitFor('✓ Logged in');
    expect(await t.exitCode()).toBe(0);
    // Asked once more for the password, not for anything else.
    expect(done.split('\n').filter((l) => l.startsWith('Auth URL:'))).toHaveLength(1);
    expect(done.split('\n').filter((l) => l === 'Password:')).toHaveLength(2);
  });

  it('a bad URL typed at "Base URL:" is said at once and asked again; "Realm:" refuses a URL', async () => {
    const dirs = {
      PRS_CONFIG_DIR: join(tmp.path, 'check-config'),
      PRS_CACHE_DIR: join(tmp.path, 'check-cache'),
    };
    const t = await open({ args: ['login'], env: dirs });
    const wrong: Record<string, string> = { 'Base URL:': 'api.example.com', 'Realm:': sandbox.authUrl };
    for (const [prompt, answer] of loginAnswers()) {
      if (wrong[prompt]) {
        await t.waitFor((s) => lastLine(s) === prompt);
        await t.type(wrong[prompt]);
        await t.press('Enter');
        // Said before the next prompt, which is this one again (not the password's, 6 answers later).
        await t.waitFor((s) => s.includes('; try again') && lastLine(s) === prompt);
      }
      await t.waitFor((s) => lastLine(s) === prompt);
      await t.type(answer);
      await t.press('Enter');
    }
    const done = await t.waitFor('✓ Logged in');
    expect(await t.exitCode()).toBe(0);
    const lines = done.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'Base URL: api.example.com',
      'invalid URL "api.example.com"; try again',
      `Base URL: ${sandbox.url}`,
      `Auth URL: ${sandbox.authUrl}`,
    ]);
    expect(lines).toContain(
      `invalid realm "${sandbox.authUrl}": a realm is a name such as "acme", not a URL; try again`,
    );
    const stored = JSON.parse(readFileSync(join(dirs.PRS_CONFIG_DIR, 'config.json'), 'utf8'));
    expect(stored.profiles.default.settings).toMatchObject({ 'base-url': sandbox.url, realm: sandbox.realm });
  });

  it('--password-stdin with a terminal on stdin says what to do instead', async () => {
    const t = await open({
      args: ['login', '--password-stdin'],
      env: { PRS_CONFIG_DIR: join(tmp.path, 'stdin-config'), PRS_CLIENT_SECRET: CLIENT_SECRET },
    });
    // The hint is the last line written: waiting for the first line alone could catch the screen between the two.
    const screen = await t.waitFor('hint: pipe the password in');
    expect(await t.exitCode()).toBe(2);
    expect(screen).toMatch(
      /prs: --password-stdin: stdin is a terminal, not a pipe\nhint: pipe the password in/,
    );
  });

  it('report draws a table that fits 160 columns, numbers right-aligned', async () => {
    const t = await open({ args: ['report', '1', '--type', 'index', '--date', '2024-05-02'], env });
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    const table = tableLines(screen);
    // Top rule, header, header rule, the two index rows (EUR, USD), bottom rule.
    expect(table.map((l) => l[0])).toEqual(['┌', '│', '├', '│', '│', '└']);
    const [top, header, rule, row1, row2, bottom] = table;
    expect(header).toMatch(/│ effectiveDate +│ indexId +│ indexName +│ +indexValue │/);
    // Eleven columns do not all fit 160 whole: long text may be shortened in the middle, keeping
    // the currency that tells the rows apart (issue 24), numbers never.
    expect(row1).toMatch(/│ Sandbox Europe 5[^│]*EUR +│/);
    expect(row2).toMatch(/│ Sandbox Europe 5[^│]*USD +│/);
    for (const l of table) {
      expect(l.length).toBeLessThanOrEqual(160);
      expect(l.length).toBe(top.length);
      expect(separators(l)).toEqual(separators(top));
    }
    expect(bottom.endsWith('┘')).toBe(true);
    expect(rule.endsWith('┤')).toBe(true);

    // Cell spans of one column, from the separators: [start, end) of the text between "│ " and " │".
    const span = (line: string, name: string) => {
      const seps = separators(header);
      const i = seps.findIndex((p, k) => k + 1 < seps.length && header.slice(p, seps[k + 1]).includes(name));
      return line.slice(seps[i] + 2, seps[i + 1] - 1);
    };
    // indexValue is numeric: every cell's text ends at the column's right edge, the shorter header too.
    for (const l of [header, row1, row2]) expect(span(l, 'indexValue')).toMatch(/[0-9a-z]$/);
    expect(span(header, 'indexValue')).toMatch(/^ +indexValue$/);
    expect(span(row1, 'indexValue')).toMatch(/^ *\d+\.\d+$/);
    expect(span(row2, 'indexValue')).toMatch(/^ *\d+\.\d+$/);
    // indexName is text: left-aligned, padded on the right.
    expect(span(header, 'indexName')).toMatch(/^indexName +$/);
    expect(span(row1, 'indexName')).toMatch(/^Sandbox Europe 5\S*EUR *$/);
  });

  it('a narrow terminal gets a trimmed table and a note, never wrapped rows', async () => {
    const t = await open({
      args: ['report', '1', '--type', 'index', '--date', '2024-05-02'],
      env,
      width: 60,
    });
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    expect(screen).toMatch(/\d+ of \d+ columns did not fit the terminal: .* — pick columns with --fields/);
    const table = tableLines(screen);
    expect(table).toHaveLength(6);
    // Wrapped lines are joined in the capture (-J): a row wider than the pane would show up as longer.
    for (const l of table) expect(l.length).toBeLessThanOrEqual(60);
    for (const l of screen.split('\n')) if (l.includes('│')) expect(table).toContain(l);
    expect(table[1]).toMatch(/^│ effectiveDate +│/);
  });

  it('a range shows "n/N · date · portfolio · next request in … s" through a wait, and clears it at the end', async () => {
    const out = join(tmp.path, 'range.json');
    const t = await open({
      args: [
        ...'report 42 -t index --from 2024-05-01 --to 2024-05-07 --rate-limit 2/3s -f json -o'.split(' '),
        out,
      ],
      env,
    });
    // Five weekdays at 2 per 3 s: the third request has to wait.
    const line = /[345]\/5 · 2024-05-0\d · portfolio 42 · next request in (\d) s( · ETA \d+ s)?/;
    const waiting = await t.waitFor(line, { timeoutMs: 15_000 });
    expect(lastLine(waiting)).toMatch(
      /^\S [345]\/5 · 2024-05-0\d · portfolio 42 · next request in \d s( · ETA \d+ s)?$/,
    );
    expect(await t.exitCode({ timeoutMs: 20_000 })).toBe(0);
    // Only the note remains: no spinner frame, no half-erased progress text.
    expect(await t.screen()).toBe(`wrote 10 rows to ${out}`);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(10);
  });

  it('--log-format json on a terminal: no progress line and no colour, every line one JSON object', async () => {
    const out = join(tmp.path, 'json-log.json');
    const started = Date.now();
    const run = (format: 'json' | 'text') =>
      open({
        args: [
          ...'report 42 999 -t index --from 2024-05-01 --to 2024-05-02 --rate-limit 2/3s -f json -o'.split(
            ' ',
          ),
          out,
          '--force',
          '--log-format',
          format,
        ],
        env,
      });
    const t = await run('json');
    // exitCode samples the screen every 50 ms while prs runs: a progress line would be caught.
    expect(await t.exitCode({ timeoutMs: 20_000 })).toBe(6); // 999: not found, an item failure
    // Four requests at 2 per 3 s: a wait of seconds, so the samples covered a waiting range.
    expect(Date.now() - started).toBeGreaterThan(2000);
    for (const screen of t.screens)
      for (const line of screen.split('\n').filter(Boolean))
        expect(() => JSON.parse(line), line).not.toThrow();
    const last = (await t.screen()).split('\n');
    expect(last.map((l) => (JSON.parse(l) as { event: string }).event)).toContain('summary');
    // No colour: text mode paints the final error red on this terminal (so the check can fail).
    const red = /\u001b\[(?:[0-9;]*;)?31m/;
    expect(await t.styled()).not.toMatch(red);
    t.close();
    const text = await run('text');
    expect(await text.exitCode({ timeoutMs: 20_000 })).toBe(6);
    expect(await text.styled()).toMatch(red);
  });

  it('with -q a range shows no progress at all', async () => {
    const out = join(tmp.path, 'quiet.json');
    const started = Date.now();
    const t = await open({
      args: [
        ...'report 42 -t index --from 2024-05-01 --to 2024-05-03 --rate-limit 2/3s -f json -o'.split(' '),
        out,
        '-q',
      ],
      env,
    });
    // exitCode samples the screen every 50 ms while prs runs: a progress line would be caught.
    expect(await t.exitCode({ timeoutMs: 20_000 })).toBe(0);
    // Three requests at 2 per 3 s: at least one wait of seconds, so the samples covered a waiting range.
    expect(Date.now() - started).toBeGreaterThan(2000);
    for (const s of t.screens) expect(s).toBe('');
    expect(await t.screen()).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(6);
  });
});
