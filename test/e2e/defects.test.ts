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
