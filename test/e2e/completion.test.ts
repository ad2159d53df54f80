// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell source in plain strings
// `prs completion <shell>` and `prs __complete` through the built binary (npm run build first).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { baseEnv, PRS_BIN, runPrs, tempDir } from '../helpers/run.js';
import { useTempDir } from '../helpers/session.js';

const config = useTempDir('prs-completion-config-');

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

describe('prs __complete', () => {
  it('prints nothing and exits 0 when there is no config yet', async () => {
    const r = await runPrs(['__complete', '--', '--profile', ''], { env: { PRS_CONFIG_DIR: config.path } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
  });

  it('lists the profiles of the config file, sorted', async () => {
    const dir = tempDir('prs-completion-profiles-');
    try {
      writeFileSync(
        join(dir.path, 'config.json'),
        JSON.stringify({ profiles: { work: { settings: { tenant: 'T1' } }, default: { settings: {} } } }),
      );
      const r = await runPrs(['__complete', '--', 'report', '--profile', ''], {
        env: { PRS_CONFIG_DIR: dir.path },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('default\nwork\n');
      expect(r.stderr).toBe('');
    } finally {
      dir.cleanup();
    }
  });

  it('prints nothing, and no error, when the config file is corrupt', async () => {
    const dir = tempDir('prs-completion-corrupt-');
    try {
      writeFileSync(join(dir.path, 'config.json'), '{ not json');
      const r = await runPrs(['__complete', '--', 'report', '--profile', ''], {
        env: { PRS_CONFIG_DIR: dir.path },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
    } finally {
      dir.cleanup();
    }
  });

  it('bash completes --profile from the real config through the real binary', () => {
    const dir = tempDir('prs-completion-bash-');
    try {
      const bin = join(dir.path, 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'prs'), `#!/bin/sh\nexec "${process.execPath}" "${PRS_BIN}" "$@"\n`);
      chmodSync(join(bin, 'prs'), 0o755);
      writeFileSync(
        join(dir.path, 'config.json'),
        JSON.stringify({
          profiles: { prod: { settings: {} }, 'prod-eu': { settings: {} }, test: { settings: {} } },
        }),
      );
      const script = fileURLToPath(new URL('../../completions/prs.bash', import.meta.url));
      const r = spawnSync(
        'bash',
        [
          '--norc',
          '--noprofile',
          '-c',
          'source "$0"; COMP_WORDS=(prs report --profile pr); COMP_CWORD=3; _prs; printf "%s\\n" "${COMPREPLY[@]}"',
          script,
        ],
        {
          env: baseEnv({ PRS_CONFIG_DIR: dir.path, PATH: `${bin}:${process.env.PATH}` }),
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      expect(r.stderr).toBe('');
      expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['prod', 'prod-eu']);
    } finally {
      dir.cleanup();
    }
  });

  it('offers the words after the given ones, each with its description', async () => {
    const r = await runPrs(['__complete', '--', 'report', '1', '-t', 'constituent.p'], {
      env: { PRS_CONFIG_DIR: config.path },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^constituent\.proforma\tpro-forma constituents$/m);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(6);
  });
});
