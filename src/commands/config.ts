import type { Deps } from '../deps.js';
import { NoDataError } from '../errors.js';
import { oneOf } from '../input.js';
import {
  checkSetting,
  effectiveSettings,
  globalSettingValues,
  SETTING_KEYS,
  type SettingKey,
  settingRow,
  shownValue,
} from '../settings.js';
import { asUsage } from './flags.js';

export interface ConfigOptions {
  action: 'list' | 'get' | 'set' | 'unset' | 'path';
  key?: string;
  value?: string;
  json?: boolean;
}

export const parseKey = (key: string): SettingKey => oneOf('setting', key, SETTING_KEYS, 'settings');

export const checkValue = (key: SettingKey, value: string) => asUsage(() => checkSetting(key, value));

const shown = (key: SettingKey, value: string | undefined) => (value ? shownValue(key, value) : value);

export async function config(o: ConfigOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const store = await deps.store();
  if (o.action === 'path') {
    io.out(`${store.path}\n`);
    return;
  }
  const name = deps.profileName();
  const key = o.key === undefined ? undefined : parseKey(o.key);
  const stored = await deps.profile({ allowNew: o.action === 'set' });
  const effective = effectiveSettings(globalSettingValues(deps.globals), deps.env, stored?.settings ?? {});

  switch (o.action) {
    case 'list': {
      // Secrets masked (`get` prints the value as stored, for scripts).
      const all = SETTING_KEYS.map((k) => ({
        key: k,
        value: shown(k, effective[k].value) ?? null,
        source: effective[k].source ?? null,
      }));
      if (o.json) {
        io.out(`${JSON.stringify({ profile: name, path: store.path, settings: all }, null, 2)}\n`);
        return;
      }
      const width = Math.max(...all.map((e) => e.key.length)) + 1;
      const valueWidth = Math.max(...all.map((e) => (e.value ?? '').length));
      for (const e of all) {
        const where =
          e.source === 'env'
            ? `env ${settingRow(e.key).env}`
            : e.source === 'flag'
              ? `flag --${e.key}`
              : e.source;
        io.out(
          `${`${e.key}:`.padEnd(width)} ${e.value === null ? '' : e.value.padEnd(valueWidth)}${where ? `  (${where})` : ''}`.trimEnd() +
            '\n',
        );
      }
      return;
    }
    case 'get': {
      const e = effective[key!];
      if (e.value === undefined) {
        throw new NoDataError(`${key} is not set (profile ${name})`, {
          hint: `set it with \`prs config set ${key} <value>\` or ${settingRow(key!).env!}`,
        });
      }
      io.out(`${e.value}\n`);
      return;
    }
    case 'set': {
      const value = checkValue(key!, o.value!);
      await store.update(name, (p) => ({ ...p, settings: { ...p?.settings, [key!]: value } }));
      io.note(`✓ ${key} = ${shown(key!, value)} (profile ${name})`);
      const env = settingRow(key!).env!;
      if (deps.env[env]) io.note(`note: ${env} is set and takes precedence over the profile`);
      return;
    }
    case 'unset': {
      if (stored?.settings?.[key!] === undefined) return;
      await store.update(name, (p) => {
        if (!p) return p;
        const { [key!]: _removed, ...rest } = p.settings ?? {};
        return { ...p, settings: rest };
      });
      io.note(`✓ ${key} unset (profile ${name})`);
      return;
    }
  }
}
