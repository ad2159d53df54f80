/** ownSignals (src/main.ts): prs alone answers SIGINT/SIGTERM while a command runs. */
import { afterEach, describe, expect, it } from 'vitest';
import { ownSignals } from '../../src/main.js';

const tick = () => new Promise((r) => process.nextTick(r));
let release: (() => void) | undefined;
afterEach(() => release?.());

describe('ownSignals', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'a %s hook a library adds meanwhile (once, as when-exit does) is dropped; others are not touched',
    async (signal) => {
      const before = process.listeners(signal).length;
      const seen: string[] = [];
      release = ownSignals((s) => seen.push(s));
      expect(process.listeners(signal)).toHaveLength(before + 1);
      const reRaiser = () => {};
      process.once(signal, reRaiser);
      const other = () => {};
      process.on('SIGUSR2', other);
      await tick();
      expect(process.listeners(signal)).toHaveLength(before + 1);
      expect(process.listeners('SIGUSR2')).toContain(other);
      process.off('SIGUSR2', other);
      process.emit(signal, signal);
      expect(seen).toEqual([signal]);
      release();
      release = undefined;
      expect(process.listeners(signal)).toHaveLength(before);
    },
  );
});
