// Exact decimals (units × 10^exp) from number texts, never via a double (big.js: a dependency for one use).

interface Decimal {
  units: bigint;
  exp: number;
}

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Beyond this power of ten a delta's plain notation would be huge: it is null, never approximated. */
const MAX_EXP = 4000;

/** A JSON number's text as its sign, digits (no leading zeros) and exponent: ±digits × 10^exp. */
export function decimalParts(text: string): { negative: boolean; digits: string; exp: number } | undefined {
  const m = NUMBER.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  const exp = (m[4] === undefined ? 0 : Number(m[4])) - frac.length;
  return { negative: m[1] === '-', digits: (m[2] + frac).replace(/^0+(?=\d)/, ''), exp };
}

/** Undefined when `text` is not a number (or out of range). */
export function parseDecimal(text: string): Decimal | undefined {
  const p = decimalParts(text);
  if (!p || !Number.isSafeInteger(p.exp) || Math.abs(p.exp) > MAX_EXP || p.digits.length > MAX_EXP)
    return undefined;
  const units = BigInt(p.digits);
  return { units: p.negative ? -units : units, exp: p.exp };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

function minus(a: Decimal, b: Decimal): Decimal {
  const exp = Math.min(a.exp, b.exp);
  return { units: a.units * pow10(a.exp - exp) - b.units * pow10(b.exp - exp), exp };
}

/** units × 10^exp in plain notation, without trailing fractional zeros; 0 is "0" (units a number while exact). */
export function plain(d: { units: bigint | number; exp: number }): string {
  const neg = d.units < 0;
  const digits = (neg ? -d.units : d.units).toString();
  if (digits === '0') return '0';
  const sign = neg ? '-' : '';
  if (d.exp >= 0) return sign + digits + '0'.repeat(d.exp);
  const s = digits.padStart(1 - d.exp, '0');
  const cut = s.length + d.exp;
  const frac = s.slice(cut).replace(/0+$/, '');
  return `${sign}${s.slice(0, cut)}${frac ? `.${frac}` : ''}`;
}

/** Fraction digits of a plain decimal text (`-12.5`) of at most 15 digits, or -1 (anything else). */
function shortPlain(t: string): number {
  let int = 0;
  let frac = -1;
  for (let i = t.charCodeAt(0) === 45 ? 1 : 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 46 && frac < 0) frac = 0;
    else if (c < 48 || c > 57) return -1;
    else if (frac < 0) int++;
    else frac++;
  }
  return int === 0 || frac === 0 || int + Math.max(frac, 0) > 15 ? -1 : Math.max(frac, 0);
}

/** The usual report values without BigInt: scaled to integers below 10^15, exact in a double. */
function subtractShort(to: string, from: string): string | undefined {
  const ft = shortPlain(to);
  const ff = shortPlain(from);
  if (ft < 0 || ff < 0) return undefined;
  const f = Math.max(ft, ff);
  const a = scaled(to, ft, f);
  const b = scaled(from, ff, f);
  if (a === undefined || b === undefined) return undefined;
  return plain({ units: a - b, exp: -f });
}

function scaled(t: string, frac: number, f: number): number | undefined {
  const digits = t.replace('.', '') + '0'.repeat(f - frac);
  const n = Number(digits); // an integer text: exact below 2^53
  return Math.abs(n) < 1e15 ? n : undefined;
}

/** `to − from`; undefined when either is not a number (or out of range). */
export function subtract(to: string, from: string): string | undefined {
  const short = subtractShort(to, from);
  if (short !== undefined) return short;
  const a = parseDecimal(to);
  const b = parseDecimal(from);
  return a && b ? plain(minus(a, b)) : undefined;
}

/** The sign of `a − b`; undefined when either is not a number (or out of range). */
export function compareDecimal(a: string, b: string): number | undefined {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  if (x === undefined || y === undefined) return undefined;
  const d = minus(x, y).units;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** Whether two number texts are the same number (`1.0` and `1`, `5E-13` and `0.0000000000005`). */
export function sameNumber(a: string, b: string): boolean {
  return a === b || compareDecimal(a, b) === 0;
}

/** A number literal as jq 1.7 prints it: decNumber's to-scientific-string (`1e5` as `1E+5`). */
export function decimalSpelling(raw: string): string {
  const p = decimalParts(raw);
  if (!p) return raw;
  const { digits, exp } = p;
  const sign = p.negative ? '-' : '';
  const adjusted = exp + digits.length - 1;
  if (exp <= 0 && adjusted >= -6) {
    const point = digits.length + exp;
    if (exp === 0) return sign + digits;
    return point > 0
      ? `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
      : `${sign}0.${'0'.repeat(-point)}${digits}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}E${adjusted >= 0 ? '+' : '-'}${Math.abs(adjusted)}`;
}

/** A plain decimal text times 10^n, exact (weights as basis points: n = 4). */
export function shift(text: string, n: number): string | undefined {
  const d = parseDecimal(text);
  return d && plain({ units: d.units, exp: d.exp + n });
}
