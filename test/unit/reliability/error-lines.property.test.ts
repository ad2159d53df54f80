/**
 * Whatever text ends up in an error (argv echoed back, a server's message), stderr gets at most two
 * lines, `prs: ...` first, with no control or bidi character that a terminal would obey.
 */
import { CommanderError } from 'commander';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileError, UsageError } from '../../../src/errors.js';
import { errorLines, errorReport, printable } from '../../../src/main.js';

const OBEYED = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const hostile = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\n', '\r', '\t', '\x1b', '\x07', '\x00', '\x9b', '\u202e', '\u2066', '[31m', ']0;x'),
    fc.string({ maxLength: 3 }),
  ),
  maxLength: 40,
});

describe('error lines', () => {
  it('[R-P07] any message or hint → at most two printable lines, prs: first (property)', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        fc.constantFrom('usage', 'file', 'internal', 'commander'),
        (msg, hint, kind) => {
          const err =
            kind === 'usage'
              ? new UsageError(`invalid date "${msg}"`, { hint })
              : kind === 'file'
                ? new FileError(msg, { hint: hint || undefined })
                : kind === 'internal'
                  ? new TypeError(msg)
                  : new CommanderError(1, 'commander.unknownOption', `error: unknown option '${msg}'`);
          const lines = errorLines(errorReport(err, false));
          expect(lines.length).toBeGreaterThanOrEqual(1);
          expect(lines.length).toBeLessThanOrEqual(2);
          expect(lines[0]!.startsWith('prs: ')).toBe(true);
          for (const line of lines) expect(line).not.toMatch(OBEYED);
        },
      ),
    );
  });

  it('printable escapes visibly and leaves ordinary text alone', () => {
    expect(printable('a\nb\x1b[31mc\u202ed')).toBe('a\\nb\\u001b[31mc\\u202ed');
    expect(printable('Grüße, 東京 — ok')).toBe('Grüße, 東京 — ok');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(printable(s)).not.toMatch(OBEYED);
      }),
    );
  });
});
