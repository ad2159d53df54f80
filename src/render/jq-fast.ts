/**
 * A subset of jq compiled to closures over the rows prs already parsed (the choice: docs/performance.md).
 * It keeps jq 1.7's semantics: a filter outside the subset is left to jq-web (`compileFast` gives none).
 */

import { JsonNumber } from '../domain.js';
import { compareDecimal, decimalSpelling, plain } from '../json/decimal.js';

/** A number jq computed: a double, printed and compared as one (a literal keeps its digits). */
class Computed {
  constructor(readonly n: number) {}
}

/** Where a filter reads `.key`; `id` and `hint` are the Lazy's own, kept from input to input. */
export interface Site {
  readonly key: string;
  id: number;
  hint: number;
}

/** An object read key by key, made whole only when needed whole (jq.ts: a row on the tape). */
export abstract class Lazy {
  abstract get(site: Site): unknown;
  abstract whole(): Record<string, unknown>;
  /** Its compact JSON as `json` would print it, when that can be had without making it whole. */
  abstract text(): string | undefined;
}

const real = (v: unknown) => (v instanceof Lazy ? v.whole() : v);

/** A run-time error of the filter: jq-web is asked for its message. */
export class JqError extends Error {}

/** Not in the subset (thrown while compiling only). */
class Outside extends Error {}

type Emit = (v: unknown) => void;
/**
 * A compiled filter: each of its outputs for `input` to `emit`, in jq's order. `one` gives the output
 * of a filter that always has exactly one, `opt` that of one with at most one (NONE: none): no
 * closure per row where every step has one (`select(…) | .a`).
 */
export type Filter = ((input: unknown, emit: Emit) => void) & {
  one?: (input: unknown) => unknown;
  opt?: (input: unknown) => unknown;
};

const NONE = Symbol('none');

function single(one: (x: unknown) => unknown): Filter {
  return Object.assign((x: unknown, emit: Emit) => emit(one(x)), { one, opt: one });
}

function atMostOne(opt: (x: unknown) => unknown): Filter {
  return Object.assign(
    (x: unknown, emit: Emit) => {
      const v = opt(x);
      if (v !== NONE) emit(v);
    },
    { opt },
  );
}

const IDENTITY = single((x) => x);

/** `b` on each output of `a`. */
function then(a: Filter, b: Filter): Filter {
  const [fa, fb] = [a.one, b.one];
  if (a === IDENTITY) return b;
  if (fa && fb) return single((x) => fb(fa(x)));
  const [oa, ob] = [a.opt, b.opt];
  if (oa && ob)
    return atMostOne((x) => {
      const v = oa(x);
      return v === NONE ? NONE : ob(v);
    });
  if (fa) return (x, emit) => b(fa(x), emit);
  return (x, emit) => a(x, (v) => b(v, emit));
}

/** The outputs of `f` for `x` in an array. */
function collect(f: Filter, x: unknown): unknown[] {
  const out: unknown[] = [];
  f(x, (v) => out.push(v));
  return out;
}

const isNumber = (v: unknown) => typeof v === 'number' || v instanceof JsonNumber || v instanceof Computed;
const truthy = (v: unknown) => v !== null && v !== false;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isNumber(v);

/** jq's order of kinds: null, false, true, numbers, strings, arrays, objects. */
function kind(v: unknown): number {
  if (v === null || typeof v === 'boolean') return v === null ? 0 : v ? 2 : 1;
  if (isNumber(v)) return 3;
  return typeof v === 'string' ? 4 : Array.isArray(v) ? 5 : 6;
}
const TYPE = ['null', 'boolean', 'boolean', 'number', 'string', 'array', 'object'];

/** Strings in code point order (jq compares UTF-8 bytes): a surrogate sorts above U+E000–U+FFFF. */
function compareStrings(a: string, b: string): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const order = (c: number) => (c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);
    return order(x) - order(y);
  }
  return a.length - b.length;
}

const keysOf = (o: Record<string, unknown>) => Object.keys(o).sort(compareStrings);

/** jq's `jv_cmp`: two literals compare exactly (decNumber), anything computed as a double. */
function compare(left: unknown, right: unknown): number {
  // Two plain numbers (literals whose double prints as they were sent) are what their doubles are.
  if (typeof left === 'number' && typeof right === 'number')
    return left < right ? -1 : left === right ? 0 : 1;
  const [a, b] = [real(left), real(right)];
  const k = kind(a);
  if (k !== kind(b)) return k - kind(b);
  if (k === 3) {
    const x = a instanceof Computed ? a.n : Number(a);
    const y = b instanceof Computed ? b.n : Number(b);
    // A literal's double is its value rounded, which keeps order: only equal doubles need its digits.
    const literals = !(a instanceof Computed || b instanceof Computed);
    if (x === y && literals && (a instanceof JsonNumber || b instanceof JsonNumber))
      return compareDecimal(String(a), String(b)) ?? 0;
    return x < y ? -1 : x === y ? 0 : 1;
  }
  if (k === 4) return compareStrings(a as string, b as string);
  if (k === 5) {
    const [x, y] = [a as unknown[], b as unknown[]];
    for (let i = 0; i < x.length && i < y.length; i++) {
      const c = compare(x[i], y[i]);
      if (c !== 0) return c;
    }
    return x.length - y.length;
  }
  if (k !== 6) return 0;
  // Objects: their sorted keys, then the values in that order.
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  const keys = keysOf(x);
  return (
    compare(keys, keysOf(y)) ||
    compare(
      keys.map((key) => x[key]),
      keys.map((key) => y[key]),
    )
  );
}

/** A computed double as jq prints it (David Gay's g_fmt: `1e-07`, `1e+17`, infinities as ±DBL_MAX). */
function jqDouble(n: number): string {
  const d = Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, n));
  const [mantissa, e] = Math.abs(d).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const point = Number(e) + 1;
  let text: string;
  if (d === 0) text = '0';
  else if (point <= -4 || point > digits.length + 15) {
    const exp = Number(e);
    text = `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else text = plain({ units: BigInt(digits), exp: point - digits.length });
  return (d < 0 || Object.is(d, -0) ? '-' : '') + text;
}

/** A string as jq writes it in JSON (DEL escaped too; a lone surrogate never gets this far: jq.ts). */
function quote(s: string): string {
  return JSON.stringify(s).replaceAll('\x7f', '\\u007f');
}

/** `v` as compact JSON, a literal through `literal` (its text as sent, or jq's spelling for tostring). */
function dump(value: unknown, literal: (raw: string) => string): string {
  const v = real(value);
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') return literal(String(v));
  if (v instanceof JsonNumber) return literal(v.raw);
  if (v instanceof Computed) return jqDouble(v.n);
  let text = '';
  if (Array.isArray(v)) {
    for (const x of v) text += `,${dump(x, literal)}`;
    return `[${text.slice(1)}]`;
  }
  if (!isObject(v)) return String(v);
  for (const k of Object.keys(v)) text += `,${quote(k)}:${dump(v[k], literal)}`;
  return `{${text.slice(1)}}`;
}

/** `v` as compact JSON with the digits the service sent. */
export const json = (v: unknown) => (v instanceof Lazy ? v.text() : undefined) ?? dump(v, (raw) => raw);

const tostring = (v: unknown) => (typeof v === 'string' ? v : dump(v, decimalSpelling));

function field(key: string | number): Filter {
  const site: Site | undefined = typeof key === 'string' ? { key, id: -1, hint: 0 } : undefined;
  return single((x) => index(x, key, site));
}

function index(v: unknown, key: string | number, site?: Site): unknown {
  if (v === null) return null;
  if (site && v instanceof Lazy) return v.get(site);
  if (typeof key === 'string' && isObject(v)) return Object.hasOwn(v, key) ? v[key] : null;
  if (typeof key === 'number' && Array.isArray(v)) return v[key < 0 ? v.length + key : key] ?? null;
  throw new JqError();
}

function iterate(value: unknown, emit: Emit): void {
  const v = real(value);
  if (Array.isArray(v)) for (const x of v) emit(x);
  else if (isObject(v)) for (const k in v) emit(v[k]);
  else throw new JqError();
}

function length(value: unknown): Computed {
  const x = real(value);
  if (typeof x === 'boolean') throw new JqError();
  if (isNumber(x)) return new Computed(Math.abs(x instanceof Computed ? x.n : Number(x)));
  if (x === null) return new Computed(0);
  if (typeof x === 'string') return new Computed([...x].length);
  return new Computed(Array.isArray(x) ? x.length : Object.keys(x as object).length);
}

function keys(value: unknown): unknown[] {
  const x = real(value);
  if (Array.isArray(x)) return x.map((_, i) => new Computed(i));
  if (isObject(x)) return keysOf(x);
  throw new JqError();
}

const BUILTINS: Record<string, Filter> = {
  empty: atMostOne(() => NONE),
  not: single((x) => !truthy(x)),
  type: single((x) => TYPE[kind(x)]),
  tostring: single(tostring),
  length: single(length),
  keys: single(keys),
};

const COMPARE: Record<string, (c: number) => boolean> = {
  '==': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

/** A number token as jq 1.7 keeps it: the spelling it prints, a `number` where JS prints it so. */
function literalNumber(text: string): number | JsonNumber {
  const spelled = decimalSpelling(text);
  return String(Number(spelled)) === spelled ? Number(spelled) : new JsonNumber(spelled);
}

/** A string token's pieces: text, or the tokens of a `\(…)`. */
type Token = string | { str: (string | Token[])[] };

const LEX =
  /\s+|(\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![.\w])|==|!=|<=|>=|\/\/(?!=)|[.[\]{}(,:|<>-](?![=|]))|(")|(\))/y;

/** Tokens from `at` to the end (or to the `)` closing an interpolation): `end` is where it stopped. */
function lex(src: string, at: number, nested: boolean): { tokens: Token[]; end: number } {
  const tokens: Token[] = [];
  let depth = 0;
  LEX.lastIndex = at;
  while (LEX.lastIndex < src.length) {
    const m = LEX.exec(src);
    if (!m) throw new Outside();
    if (m[3]) {
      if (nested && depth === 0) return { tokens, end: LEX.lastIndex };
      depth--;
      tokens.push(')');
    } else if (m[1]) {
      if (m[1] === '(') depth++;
      tokens.push(m[1]);
    } else if (m[2]) {
      const str: (string | Token[])[] = [];
      let i = LEX.lastIndex;
      for (let from = i; ; i++) {
        if (i >= src.length) throw new Outside();
        if (src[i] === '"' || src.startsWith('\\(', i)) {
          str.push(JSON.parse(`"${src.slice(from, i)}"`) as string);
          if (src[i] === '"') break;
          const inner = lex(src, i + 2, true);
          str.push(inner.tokens);
          i = inner.end - 1;
          from = inner.end;
        } else if (src[i] === '\\') i++;
      }
      LEX.lastIndex = i + 1;
      tokens.push({ str });
    }
  }
  if (nested) throw new Outside();
  return { tokens, end: src.length };
}

/** `filter` compiled, or undefined when it is outside the subset (or not jq at all). */
export function compileFast(filter: string): Filter | undefined {
  try {
    return parse(lex(filter, 0, false).tokens);
  } catch (err) {
    if (err instanceof Outside || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

function parse(tokens: Token[]): Filter {
  let p = 0;
  const peek = () => tokens[p];
  const eat = (t: string) => tokens[p] === t && ++p > 0;
  const outside = (): never => {
    throw new Outside();
  };
  const need = (t: string) => eat(t) || outside();

  function pipe(): Filter {
    const left = comma();
    return eat('|') ? then(left, pipe()) : left;
  }
  function comma(): Filter {
    const fs = [alternative()];
    while (eat(',')) fs.push(alternative());
    if (fs.length === 1) return fs[0]!;
    return (x, emit) => {
      for (const f of fs) f(x, emit);
    };
  }
  function alternative(): Filter {
    const a = or();
    if (!eat('//')) return a;
    const b = alternative();
    return (x, emit) => {
      let any = false;
      a(x, (v) => {
        if (truthy(v)) {
          any = true;
          emit(v);
        }
      });
      if (!any) b(x, emit);
    };
  }
  /** `and` / `or`: the left side's outputs outermost; the right one is run only where it decides. */
  function logical(word: 'and' | 'or', operand: () => Filter): Filter {
    let f = operand();
    const decides = word === 'and';
    while (eat(word)) {
      const [a, b] = [f, operand()];
      const [fa, fb] = [a.one, b.one];
      f =
        fa && fb
          ? single((x) => (truthy(fa(x)) === decides ? truthy(fb(x)) : !decides))
          : (x, emit) => a(x, (v) => (truthy(v) === decides ? b(x, (w) => emit(truthy(w))) : emit(!decides)));
    }
    return f;
  }
  const or = () => logical('or', and);
  const and = () => logical('and', comparison);
  function comparison(): Filter {
    const a = postfix();
    const test = COMPARE[peek() as string];
    if (!test) return a;
    p++;
    const b = postfix();
    const [fa, fb] = [a.one, b.one];
    if (fa && fb)
      return single((x) => {
        const w = fb(x);
        return test(compare(fa(x), w));
      });
    // jq runs the right side's outputs outside the left's.
    return (x, emit) => b(x, (w) => a(x, (v) => emit(test(compare(v, w)))));
  }
  function postfix(): Filter {
    // `if` and `-1` are no terms in jq 1.7's grammar: nothing indexes them.
    const start = peek();
    let f = term();
    if (start === 'if' || start === '-') return f;
    for (;;) {
      const t = peek();
      if (typeof t === 'string' && t.length > 1 && t[0] === '.') {
        p++;
        f = then(f, field(t.slice(1)));
      } else if (t === '[') f = then(f, suffix());
      else if (t === '.' && tokens[p + 1] === '[') {
        p++;
        f = then(f, suffix());
      } else if (t === '.' && typeof tokens[p + 1] === 'object') {
        p++;
        f = then(f, field(constantString()));
      } else return f;
    }
  }
  /** `[]`, `[n]` or `["key"]` after a term. */
  function suffix(): Filter {
    need('[');
    if (eat(']')) return iterate;
    const negative = eat('-');
    const t = peek();
    let key: string | number;
    if (typeof t === 'object') key = constantString();
    else if (/^\d+$/.test(t ?? '')) {
      key = Number(t) * (negative ? -1 : 1);
      p++;
    } else throw new Outside();
    if (negative && typeof key === 'string') throw new Outside();
    need(']');
    return field(key);
  }
  function constantString(): string {
    const t = tokens[p++];
    if (typeof t !== 'object' || t.str.length !== 1) throw new Outside();
    return t.str[0] as string;
  }
  function term(): Filter {
    const t = tokens[p++];
    if (t === undefined) throw new Outside();
    if (typeof t === 'object') return interpolated(t.str);
    if (t === '.') {
      if (peek() === '[' || typeof peek() === 'object') p--;
      return IDENTITY;
    }
    if (t[0] === '.') {
      p--;
      return IDENTITY;
    }
    if (/^0\d/.test(t)) throw new Outside();
    if (/^\d/.test(t) || (t === '-' && /^\d/.test(String(peek())))) {
      const value = t === '-' ? new Computed(-Number(tokens[p++])) : literalNumber(t);
      return single(() => value);
    }
    if (t === '(') {
      const f = pipe();
      need(')');
      return f;
    }
    if (t === '[') {
      if (eat(']')) return single(() => []);
      const f = pipe();
      need(']');
      return single((x) => collect(f, x));
    }
    if (t === '{') return object();
    if (t === 'if') return conditional();
    const constant = { true: true, false: false, null: null }[t];
    if (constant !== undefined) return single(() => constant);
    if (Object.hasOwn(BUILTINS, t)) return BUILTINS[t]!;
    if ((t === 'select' || t === 'map') && eat('(')) {
      const f = pipe();
      need(')');
      const fo = f.one;
      if (t === 'map') return single((x) => collect(then(iterate, f), x));
      if (fo) return atMostOne((x) => (truthy(fo(x)) ? x : NONE));
      return (x, emit) => f(x, (v) => truthy(v) && emit(x));
    }
    throw new Outside();
  }
  function interpolated(parts: (string | Token[])[]): Filter {
    const fs = parts.map((part) =>
      typeof part === 'string' ? single(() => part) : then(parse(part), single(tostring)),
    );
    if (fs.every((f) => f.one)) return single((x) => fs.map((f) => f.one!(x)).join(''));
    // The last piece's outputs outermost, as jq's string additions run.
    return fs.reduce<Filter>(
      (acc, f) => (x, emit) => f(x, (b) => acc(x, (a) => emit((a as string) + (b as string)))),
      single(() => ''),
    );
  }
  function object(): Filter {
    const pairs: [string, Filter][] = [];
    while (!eat('}')) {
      if (pairs.length > 0) need(',');
      const t = peek();
      const key = typeof t === 'object' ? constantString() : String(tokens[p++]);
      // JS would put an integer key first; `__proto__` is no plain key there.
      if (!/^[A-Za-z_]/.test(typeof t === 'object' ? 'a' : key) || /^(0|[1-9]\d*)$|^__proto__$/.test(key))
        throw new Outside();
      if (eat(':')) {
        // A value is a term, `-` one or terms piped (jq's ExpD), not a comma nor an `if`.
        const value = () => (peek() === 'if' ? outside() : postfix());
        let f = value();
        while (eat('|')) f = then(f, value());
        pairs.push([key, f]);
      } else pairs.push([key, field(key)]);
    }
    if (pairs.every(([, f]) => f.one))
      return single((x) => {
        const o: Record<string, unknown> = {};
        for (const [key, f] of pairs) o[key] = f.one!(x);
        return o;
      });
    // The first pair's outputs outermost.
    return (x, emit) => {
      const build = (i: number, o: Record<string, unknown>) => {
        if (i === pairs.length) return emit({ ...o });
        const [key, f] = pairs[i]!;
        f(x, (v) => build(i + 1, { ...o, [key]: v }));
      };
      build(0, {});
    };
  }
  function conditional(): Filter {
    const cond = pipe();
    need('then');
    const yes = pipe();
    let no = IDENTITY;
    if (eat('elif')) {
      tokens[--p] = 'if';
      no = term();
    } else {
      if (eat('else')) no = pipe();
      need('end');
    }
    const [c, y, n] = [cond.one, yes.one, no.one];
    if (c && y && n) return single((x) => (truthy(c(x)) ? y(x) : n(x)));
    return (x, emit) => cond(x, (v) => (truthy(v) ? yes : no)(x, emit));
  }

  const f = pipe();
  if (p !== tokens.length) throw new Outside();
  return f;
}
