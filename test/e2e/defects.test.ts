/**
 * Defects found trying prs as its users would (issue 18), against the BUILT binary (`npm run build`
 * first): suggestions, settings with control characters, odd answers, slow bodies, previous-weekday.
 */
import { describe, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';

describe('suggestions: only what is close (defect 7)', () => {
  it.each([
    [['bogus'], "prs: unknown command 'bogus'\nrun `prs --help` for usage\n"],
    [['exprot', '1'], "prs: unknown command 'exprot'\ndid you mean export?\n"],
  ])('prs %j', async (args, stderr) => {
    const r = await runPrs(args);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr });
  });
});

describe('previous-weekday (defect 6)', () => {
  it('every cron example of `export --help` asks for the previous weekday, never yesterday', async () => {
    const r = await runPrs(['export', '--help']);
    const cron = r.stdout.split('\n').filter((l) => /^\s*\$ [\d*]+ [\d*]+ /.test(l));
    expect(cron.length).toBeGreaterThan(0);
    for (const line of cron) expect(line).toMatch(/ -d previous-weekday /);
  });

  it('is accepted where a date is, and a typo of it is exit 2 naming it', async () => {
    const bad = await runPrs(['report', '42', '-t', 'index', '-d', 'previous-wekday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^prs: invalid date "previous-wekday": expected .*"previous-weekday"/);
  });
});
