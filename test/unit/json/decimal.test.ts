import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDecimal, sameNumber, shift, subtract } from '../../../src/json/decimal.js';

describe('subtract: to − from, exact, plain notation', () => {
  it.each([
    ['12.3456789012345679', '12.3456789012345678', '0.0000000000000001'],
    ['5E-13', '0.049999999999', '-0.0499999999985'],
    ['1021.55372', '971.61512', '49.9386'],
    ['1', '1', '0'],
    ['1.0', '1', '0'],
    ['-0', '0', '0'],
    ['0.1', '0.3', '-0.2'],
    ['1E+20', '12345678901234567890', '87654321098765432110'],
    ['6.02214076E+23', '0', '602214076000000000000000'],
    ['0.000000000000000001', '0', '0.000000000000000001'],
    ['9007199254740993', '9007199254740992', '1'],
    ['-1.5', '2.25', '-3.75'],
    ['1e-7', '1E-7', '0'],
    ['1.10', '1.00', '0.1'],
    ['100', '0.5e2', '50'],
  ])('%s − %s = %s', (to, from, want) => {
    expect(subtract(to, from)).toBe(want);
  });

  it.each([['abc'], [''], ['1.'], ['.5'], ['+1'], ['1e'], ['0x10'], ['1e99999']])(
    '%j is not a number it computes with',
    (s) => {
      expect(subtract(s, '1')).toBeUndefined();
    },
  );
});

describe('sameNumber and shift', () => {
  it.each([
    ['1', '1.0', true],
    ['5E-13', '0.0000000000005', true],
    ['0.1', '0.10000000000000001', false],
    ['-0', '0', true],
    ['x', 'x', true],
  ])('%s = %s: %s', (a, b, want) => {
    expect(sameNumber(a, b)).toBe(want);
  });
  it.each([
    ['0.0232981814', 4, '232.981814'],
    ['-0.0000001', 4, '-0.001'],
    ['1E-4', 4, '1'],
  ])('%s × 10^%i = %s', (s, n, want) => {
    expect(shift(s, n)).toBe(want);
  });
});

/** units × 10^exp written in one of the notations a JSON number may take. */
const written = fc
  .record({
    units: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
    exp: fc.integer({ min: -25, max: 25 }),
    // Where the decimal point goes in the digits (then the exponent makes up the rest), extra zeros.
    point: fc.nat({ max: 32 }),
    zeros: fc.nat({ max: 3 }),
    e: fc.constantFrom('', 'e', 'E', 'e+', 'E-'),
  })
  .map(({ units, exp, point, zeros, e }) => {
    const neg = units < 0n;
    const digits = (neg ? -units : units).toString() + '0'.repeat(zeros);
    let scale = exp - zeros; // value = BigInt(digits) × 10^scale
    let text: string;
    if (e === '') {
      // Plain: put the point so that no exponent is needed.
      if (scale >= 0) text = digits + '0'.repeat(scale);
      else {
        const padded = digits.padStart(1 - scale, '0');
        text = `${padded.slice(0, padded.length + scale)}.${padded.slice(padded.length + scale)}`;
      }
      scale = exp - zeros;
    } else {
      const p = Math.min(point, digits.length - 1);
      const intPart = digits.slice(0, digits.length - p);
      const frac = digits.slice(digits.length - p);
      const x = scale + p;
      const sign = e.endsWith('-')
        ? x <= 0
          ? '-'
          : ''
        : e.endsWith('+')
          ? x >= 0
            ? '+'
            : '-'
          : x < 0
            ? '-'
            : '';
      text = `${intPart}${frac ? `.${frac}` : ''}${e.replace(/[+-]$/, '')}${sign}${Math.abs(x)}`;
      if (e.endsWith('-') && x > 0) text = `${intPart}${frac ? `.${frac}` : ''}${e.slice(0, 1)}${x}`;
    }
    return {
      units: neg ? -BigInt(digits) : BigInt(digits),
      scale,
      text: (neg ? '-' : '') + text,
      notation: e,
    };
  });

/** A plain decimal text as an integer at 10^m (m at most its smallest exponent). */
function atScale(text: string, m: number): bigint {
  const [int, frac = ''] = text.replace('-', '').split('.');
  const v = BigInt(int + frac) * 10n ** BigInt(-m - frac.length);
  return text.startsWith('-') ? -v : v;
}

describe('subtract against BigInt arithmetic on the generated values', () => {
  it('is exact in every notation, and writes plain, minimal notation', () => {
    const seen = { fraction: 0, negative: 0, zero: 0, exponentInput: 0, large: 0 };
    fc.assert(
      fc.property(written, written, (a, b) => {
        const got = subtract(a.text, b.text);
        expect(got).toBeDefined();
        // Plain: no exponent, no leading zeros, no trailing fractional zeros, no "-0".
        expect(got).toMatch(/^(-?(0|[1-9]\d*)(\.\d*[1-9])?)$/);
        expect(got).not.toBe('-0');
        const m = Math.min(a.scale, b.scale, -40);
        const want = a.units * 10n ** BigInt(a.scale - m) - b.units * 10n ** BigInt(b.scale - m);
        expect(atScale(got!, m)).toBe(want);
        // A text parses to the very value it was written from.
        const pa = parseDecimal(a.text)!;
        expect(pa.units * 10n ** BigInt(pa.exp - m)).toBe(a.units * 10n ** BigInt(a.scale - m));
        if (got!.includes('.')) seen.fraction++;
        if (got!.startsWith('-')) seen.negative++;
        if (got === '0') seen.zero++;
        if (a.notation !== '' || b.notation !== '') seen.exponentInput++;
        if (got!.replace(/[-.]/g, '').length > 30) seen.large++;
      }),
      { numRuns: 3000, seed: 32 },
    );
    // Not vacuous: the runs met fractions, negatives, exponent inputs and long results.
    expect(seen.fraction).toBeGreaterThan(500);
    expect(seen.negative).toBeGreaterThan(500);
    expect(seen.exponentInput).toBeGreaterThan(1500);
    expect(seen.large).toBeGreaterThan(300);
  });

  it('a number minus itself written otherwise is 0, and sameNumber says so', () => {
    let differentTexts = 0;
    fc.assert(
      fc.property(written, (a) => {
        // The same value as integer digits and an exponent: "-123E-5" for "-0.00123".
        const other = `${a.units}E${a.scale}`;
        if (other !== a.text) differentTexts++;
        expect(subtract(other, a.text)).toBe('0');
        expect(sameNumber(other, a.text)).toBe(true);
      }),
      { numRuns: 500, seed: 7 },
    );
    expect(differentTexts).toBeGreaterThan(400);
  });

  it('short plain decimals (at most 15 digits: the double path) are exact too, near 10^15 as well', () => {
    const short = fc
      .record({
        digits: fc.integer({ min: 1, max: 15 }),
        seed: fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        frac: fc.integer({ min: 0, max: 14 }),
        neg: fc.boolean(),
      })
      .map(({ digits, seed, frac, neg }) => {
        const units = seed % 10n ** BigInt(digits);
        const f = Math.min(frac, digits - 1);
        const s = units.toString().padStart(f + 1, '0');
        const text = f === 0 ? s : `${s.slice(0, s.length - f)}.${s.slice(s.length - f)}`;
        return { text: neg && units !== 0n ? `-${text}` : text, units: neg ? -units : units, scale: -f };
      });
    let nearTop = 0;
    fc.assert(
      fc.property(short, short, (a, b) => {
        const got = subtract(a.text, b.text)!;
        expect(got).toMatch(/^(-?(0|[1-9]\d*)(\.\d*[1-9])?)$/);
        const m = -40;
        expect(atScale(got, m)).toBe(
          a.units * 10n ** BigInt(a.scale - m) - b.units * 10n ** BigInt(b.scale - m),
        );
        if (a.text.replace(/\D/g, '').length === 15) nearTop++;
      }),
      { numRuns: 5000, seed: 15 },
    );
    expect(nearTop).toBeGreaterThan(200);
  });
});
