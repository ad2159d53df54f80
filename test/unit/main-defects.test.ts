/**
 * src/main.ts against issue 18: ownSignals (prs alone answers SIGINT/SIGTERM while a command runs)
 * and commander's "did you mean" kept only when it is close.
 */
import { CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { errorLines, errorReport, ownSignals } from '../../src/main.js';

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

describe("commander's suggestion, kept only when close (issue 18 defect 7)", () => {
  const unknown = (code: string, message: string) => new CommanderError(2, code, message);
  it.each([
    ["unknown command 'bogus'", 'logout', 'run `prs --help` for usage'],
    ["unknown command 'exprot'", 'export', 'did you mean export?'],
    ["unknown option '--fromat'", '--format', 'did you mean --format?'],
    ["unknown option '--xyz'", '--fix', 'run `prs --help` for usage'],
    ["unknown option '--forse=1'", '--force', 'did you mean --force?'],
  ])('%s, commander says %s → %s', (message, guess, hint) => {
    const code = message.includes('command') ? 'commander.unknownCommand' : 'commander.unknownOption';
    const lines = errorLines(
      errorReport(unknown(code, `error: ${message}\n(Did you mean ${guess}?)`), false),
    );
    expect(lines[1]).toBe(hint);
  });
});
