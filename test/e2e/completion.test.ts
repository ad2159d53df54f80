// `prs completion <shell>` and `prs __complete` through the built binary (npm run build first).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrs, tempDir } from '../helpers/run.js';

let config: ReturnType<typeof tempDir>;
beforeAll(() => {
  config = tempDir('prs-completion-config-');
});
afterAll(() => config?.cleanup());

describe('prs completion', () => {
  it.each(['bash', 'zsh', 'fish'])('%s prints exactly the checked-in completions/prs.%s', async (shell) => {
    const r = await runPrs(['completion', shell], { env: { PRS_CONFIG_DIR: config.path } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(new URL(`../../completions/prs.${shell}`, import.meta.url), 'utf8'));
  });

  it('an unknown shell is a usage error naming the choices', async () => {
    const r = await runPrs(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^prs: .*'tcsh'.*bash, zsh, fish/);
  });

  it('a missing shell is a usage error', async () => {
    const r = await runPrs(['completion']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: missing required argument 'shell'/);
  });
});

describe('prs __complete profiles', () => {
  it('prints nothing and exits 0 when there is no config yet', async () => {
    const r = await runPrs(['__complete', 'profiles'], { env: { PRS_CONFIG_DIR: config.path } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
  });

  it('an unknown list is a usage error', async () => {
    const r = await runPrs(['__complete', 'tenants'], { env: { PRS_CONFIG_DIR: config.path } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: unknown completion list "tenants"\nhint: lists: profiles\n$/);
  });
});
