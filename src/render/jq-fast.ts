// A subset of jq 1.7 compiled to a JS function over the rows prs already parsed (docs/performance.md):
// paths, `select`, comparisons, `and`/`or`/`not`, literals, strings with `\(…)`, arrays and objects. jq-web
// runs the rest (`//`, `if`, `length` and other builtins, arithmetic, indexes, `.[]` inside a filter).

import { isJsonNumeric, JsonNumber, type Row } from '../domain.js';
import { compareDecimal, decimalSpelling } from '../json/decimal.js';
import { stringifyLossless } from '../json/lossless.js';
import { entryValue, F, Flag, Kind, keys, numberAt, type RowBatch } from '../rows/tape.js';
import { Bytes } from './bytes.js';
import { isNested } from './columns.js';
import { writeRow } from './json.js';
import type { RowWriter } from './writer.js';

/** Where a filter reads `.key`; `id` and `hint` are TapeRow's, kept from row to row. */
interface Site {
  readonly key: string;
  id: number;
  hint: number;
}

const real = (v: unknown) => (v instanceof TapeRow ? v.whole() : v);

/** A run-time error of the filter: jq-web is asked for its message. */
class JqError extends Error {}

class Outside extends Error {}

type Filter = (input: unknown, emit: (v: unknown) => void) => void;

/** A filter as code: statements on input `x`, each output `v` (a variable or literal) handed to `k`. */
type Gen = (x: string, k: (v: string) => string) => string;

const truthy = (v: unknown) => v !== null && v !== false;

function kind(v: unknown): number {
  if (v === null || typeof v === 'boolean') return v === null ? 0 : v ? 2 : 1;
  if (isJsonNumeric(v)) return 3;
  return typeof v === 'string' ? 4 : Array.isArray(v) ? 5 : 6;
}

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

/** jq's `jv_cmp` on literals: numbers compare exactly (decNumber). */
function compare(left: unknown, right: unknown): number {
  const [a, b] = [real(left), real(right)];
  const k = kind(a);
  if (k !== kind(b)) return k - kind(b);
  if (k === 3) {
    const [x, y] = [Number(a), Number(b)];
    // A literal's double is its value rounded, which keeps order: only equal doubles need its digits.
    if (x === y && (a instanceof JsonNumber || b instanceof JsonNumber))
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

/** A JSON text's strings and numbers. */
export const TOKENS = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Compact JSON, numbers as sent; jq escapes DEL too (a lone surrogate never gets this far: TapeRow). */
const json = (v: unknown) =>
  (v instanceof TapeRow ? v.text() : undefined) ?? stringifyLossless(real(v)).replaceAll('\x7f', '\\u007f');

/** Numbers as jq 1.7 spells them (decNumber: `1e5` as `1E+5`). */
const tostring = (v: unknown) =>
  typeof v === 'string'
    ? v
    : isJsonNumeric(v)
      ? decimalSpelling(String(v))
      : json(v).replace(TOKENS, (t) => (t.startsWith('"') ? t : decimalSpelling(t)));

function index(v: unknown, site: Site): unknown {
  if (v === null) return null;
  if (v instanceof TapeRow) return v.get(site);
  if (isNested(v)) return Object.hasOwn(v, site.key) ? v[site.key] : null;
  throw new JqError();
}

// A row (`.`) is made an object where a filter puts it in an array or object.
const HELPERS = { index, compare, truthy, tostring, real };

const COMPARE = { '==': '===', '!=': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** A number token as jq 1.7 keeps it: the spelling it prints, a `number` where JS prints it so. */
function literalNumber(text: string): number | JsonNumber {
  const spelled = decimalSpelling(text);
  return String(Number(spelled)) === spelled ? Number(spelled) : new JsonNumber(spelled);
}

type Token = string | { str: (string | Token[])[] };

const LEX =
  /\s+|(\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![.\w])|==|!=|<=|>=|[.[\]{}(,:|<>](?![=|]))|(")|(\))/y;

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

/** One JS function, which V8 optimizes as a whole; undefined outside the subset. */
export function compileFast(filter: string): Filter | undefined {
  const code: Code = { constants: [], vars: 0, functions: 0 };
  try {
    const gen = parse(lex(filter, 0, false).tokens, code);
    const names = [...Object.keys(HELPERS), ...code.constants.map((_, i) => `c${i}`)];
    const body = `return (x, emit) => { ${gen('x', (v) => `emit(${v});`)} };`;
    if (code.functions > MAX_FUNCTIONS) return undefined;
    return new Function(...names, body)(...Object.values(HELPERS), ...code.constants) as Filter;
  } catch (err) {
    // RangeError: nested deeper than the parser, the generator or V8 recurse, which jq-web still runs.
    if (err instanceof Outside || err instanceof SyntaxError || err instanceof RangeError) return undefined;
    throw err;
  }
}

type Code = { constants: unknown[]; vars: number; functions: number };

/** A row's evaluation may call through all the functions nested: past this many, it is jq-web's. */
const MAX_FUNCTIONS = 200;

function parse(tokens: Token[], code: Code): Gen {
  let p = 0;
  const eat = (t: string) => tokens[p] === t && ++p > 0;
  const outside = (): never => {
    throw new Outside();
  };
  const need = (t: string) => eat(t) || outside();
  const fresh = () => `v${code.vars++}`;
  const constant = (value: unknown) => `c${code.constants.push(value) - 1}`;
  const literal =
    (name: string): Gen =>
    (_, k) =>
      k(name);
  const value = (expr: string, k: (v: string) => string) => {
    const v = fresh();
    return `const ${v} = ${expr}; ${k(v)}`;
  };
  const shared = (k: (v: string) => string): [string, (v: string) => string] => {
    const [name, v] = [fresh(), fresh()];
    code.functions++;
    return [`const ${name} = (${v}) => { ${k(v)} };`, (e) => `${name}(${e});`];
  };
  const then =
    (a: Gen, b: Gen): Gen =>
    (x, k) =>
      a(x, (v) => b(v, k));
  const field = (key: string): Gen => {
    const site = constant({ key, id: -1, hint: 0 });
    return (x, k) => value(`index(${x}, ${site})`, k);
  };

  function pipe(): Gen {
    const left = comma();
    return eat('|') ? then(left, pipe()) : left;
  }
  function comma(): Gen {
    const fs = [or()];
    while (eat(',')) fs.push(or());
    if (fs.length === 1) return fs[0]!;
    return (x, k) => {
      const [declare, each] = shared(k);
      return declare + fs.map((f) => f(x, each)).join(' ');
    };
  }
  /** `and` / `or`: the left side's outputs outermost; the right one is run only where it decides. */
  function logical(word: 'and' | 'or', operand: () => Gen): Gen {
    let f = operand();
    const decides = word === 'and';
    while (eat(word)) {
      const [a, b] = [f, operand()];
      f = (x, k) => {
        const [declare, each] = shared(k);
        const right = b(x, (w) => each(`truthy(${w})`));
        const decide = (v: string) =>
          `if (truthy(${v}) === ${decides}) { ${right} } else { ${each(`${!decides}`)} }`;
        return declare + a(x, decide);
      };
    }
    return f;
  }
  const or = () => logical('or', and);
  const and = () => logical('and', comparison);
  function comparison(): Gen {
    const a = postfix();
    const op = Object.hasOwn(COMPARE, tokens[p] as string) && COMPARE[tokens[p] as keyof typeof COMPARE];
    if (!op) return a;
    p++;
    const b = postfix();
    // jq runs the right side's outputs outside the left's. Two plain numbers compare as they are.
    const test = (v: string, w: string) =>
      `typeof ${v} === 'number' && typeof ${w} === 'number' ? ${v} ${op} ${w} : compare(${v}, ${w}) ${op} 0`;
    return (x, k) => b(x, (w) => a(x, (v) => value(test(v, w), k)));
  }
  /** A term and its `.key`s; a `[` or `."key"` after it is left unread, so the filter is jq-web's. */
  function postfix(): Gen {
    let f = term();
    for (let t = tokens[p]; typeof t === 'string' && t.length > 1 && t[0] === '.'; t = tokens[p]) {
      p++;
      f = then(f, field(t.slice(1)));
    }
    return f;
  }
  function term(): Gen {
    const t = tokens[p++];
    if (t === undefined) throw new Outside();
    if (typeof t === 'object') return interpolated(t.str);
    if (t[0] === '.') {
      if (t !== '.') p--;
      return (x, k) => k(x);
    }
    if (/^0\d/.test(t)) throw new Outside();
    if (/^\d/.test(t)) return literal(constant(literalNumber(t)));
    if (t === '(') {
      const f = pipe();
      need(')');
      return f;
    }
    if (t === '[') {
      if (eat(']')) return (_, k) => value('[]', k);
      const f = pipe();
      need(']');
      return (x, k) => {
        const out = fresh();
        return `const ${out} = []; ${f(x, (v) => `${out}.push(real(${v}));`)} ${k(out)}`;
      };
    }
    if (t === '{') return object();
    if (t === 'true' || t === 'false' || t === 'null') return (_, k) => k(t);
    if (t === 'not' || t === 'tostring') return (x, k) => value(`${t === 'not' ? '!truthy' : t}(${x})`, k);
    if (t === 'empty') return () => '';
    if (t === 'select' && eat('(')) {
      const f = pipe();
      need(')');
      return (x, k) => f(x, (v) => `if (truthy(${v})) { ${k(x)} }`);
    }
    throw new Outside();
  }
  function interpolated(parts: (string | Token[])[]): Gen {
    const fs = parts.map((part) =>
      typeof part === 'string'
        ? literal(constant(part))
        : then(parse(part, code), (x, k) => value(`tostring(${x})`, k)),
    );
    // The last piece's outputs outermost, as jq's string additions run.
    return fs.reduce<Gen>(
      (acc, f) => (x, k) => f(x, (b) => acc(x, (a) => value(`${a} + ${b}`, k))),
      (_, k) => k("''"),
    );
  }
  function object(): Gen {
    const pairs: [string, Gen][] = [];
    while (!eat('}')) {
      if (pairs.length > 0) need(',');
      const t = tokens[p++];
      const key = typeof t !== 'object' ? String(t) : t.str.length === 1 ? (t.str[0] as string) : outside();
      // JS would put an integer key first; `__proto__` is no plain key there.
      if (!/^[A-Za-z_]/.test(typeof t === 'object' ? 'a' : key) || /^(0|[1-9]\d*)$|^__proto__$/.test(key))
        throw new Outside();
      if (eat(':')) {
        // A value is a term or terms piped (jq's ExpD), not a comma.
        let f = postfix();
        while (eat('|')) f = then(f, postfix());
        pairs.push([key, f]);
      } else pairs.push([key, field(key)]);
    }
    // The first pair's outputs outermost.
    return (x, k) => {
      const got: string[] = [];
      const build = (i: number): string =>
        i === pairs.length
          ? value(`{ ${pairs.map(([key], j) => `${JSON.stringify(key)}: real(${got[j]})`).join(', ')} }`, k)
          : pairs[i]![1](x, (v) => {
              got[i] = v;
              return build(i + 1);
            });
      return build(0);
    };
  }

  const f = pipe();
  if (p !== tokens.length) throw new Outside();
  return f;
}

const rowBytes = new Bytes();
const own = (o: Row, key: string) => (Object.hasOwn(o, key) ? o[key] : null);

/** A batch's rows in turn (`at`), read from the tape by key, made objects only when needed whole. */
class TapeRow {
  private i = 0;
  private row?: Row;
  private mended = false;
  constructor(
    private readonly batch: RowBatch,
    private readonly lead?: Row,
  ) {}

  at(i: number): void {
    this.i = i;
    this.row = undefined;
    this.mended = false;
  }

  whole(): Row {
    this.row ??= this.batch.object(this.i, this.lead);
    return this.row;
  }

  /** jq 1.7 fails on a lone high half and reads a lone low half as U+FFFD: only a `\u` escape makes one. */
  loneSurrogate(): boolean {
    const { b, tape: t } = this.batch;
    const e = this.batch.at[this.i]!;
    if (
      !(t[e + F.FLAGS]! & Flag.ESC) ||
      !SURROGATE.test(b.toString('latin1', t[e + F.START]!, t[e + F.END]!))
    )
      return false;
    const lone = { high: false, any: false };
    const row = wellFormed(this.batch.object(this.i, this.lead), lone) as Row;
    if (lone.any && !lone.high) {
      this.row = row;
      this.mended = true;
    }
    return lone.high;
  }

  /** -f json's row from the bytes (jq writes DEL escaped), as `json` prints it. */
  text(): string | undefined {
    if (this.lead || this.mended) return undefined;
    writeRow(rowBytes, this.batch, this.i);
    return rowBytes.take().toString().replaceAll('\x7f', '\\u007f');
  }

  get(site: Site): unknown {
    const { b, tape: t } = this.batch;
    const e = this.batch.at[this.i]!;
    // Where JS's object decides (a key twice, an integer key, one not interned), it is asked.
    if (this.mended || t[e + F.FLAGS]! & Flag.ODD) return own(this.whole(), site.key);
    const end = t[e + F.NEXT]!;
    // A key never interned is in no row; the hint may land on a nested entry (another path's id).
    if (site.id < 0) site.id = keys.path([site.key]);
    if (site.id < 0) return this.lead ? own(this.lead, site.key) : null;
    let m = e + site.hint;
    if (site.hint === 0 || m >= end || t[m + F.KEY] !== site.id) {
      for (m = e + F.W; m < end && t[m + F.KEY] !== site.id; m = t[m + F.NEXT]!);
      site.hint = m - e;
    }
    // A number read here keeps entryValue, which makes any value, cold (V8 then optimizes less).
    if (m < end) return t[m] === Kind.NUM ? numberAt(b, t[m + F.START]!, t[m + F.END]!) : entryValue(b, t, m);
    return this.lead ? own(this.lead, site.key) : null;
  }
}

/** A surrogate's escape, or text that looks like one (`\\ud800`): only then are the row's strings read. */
const SURROGATE = /\\u[dD][89a-fA-F]/;
const HIGH = /[\ud800-\udbff](?![\udc00-\udfff])/;

function wellFormed(v: unknown, lone: { high: boolean; any: boolean }): unknown {
  if (typeof v === 'string') {
    if (v.isWellFormed()) return v;
    lone.any = true;
    lone.high ||= HIGH.test(v);
    return v.toWellFormed();
  }
  if (Array.isArray(v)) return v.map((x) => wellFormed(x, lone));
  if (typeof v !== 'object' || v === null || v instanceof JsonNumber) return v;
  // fromEntries defines own properties: `__proto__` stays a key.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k, lone), wellFormed(x, lone)]));
}

/** Each result a line (a string raw), or `,` and its JSON when gathered; an answer's failure counts once done. */
export function fastWriter(filter: Filter, gather: boolean, run: { failed?: string }): RowWriter {
  let rows = 0;
  return {
    answer(_label, lead) {
      let n = 0;
      let failed: string | undefined;
      return {
        rows(batch) {
          let text = '';
          const emit = (v: unknown) => {
            text += gather ? `,${json(v)}` : `${typeof v === 'string' ? v : json(v)}\n`;
          };
          const row = new TapeRow(batch, lead);
          for (let i = 0; i < batch.length && failed === undefined; i++, n++) {
            row.at(i);
            try {
              if (row.loneSurrogate()) throw new JqError();
              filter(row, emit);
            } catch (err) {
              // A stack overflow (the generated code recursing too deep) is the filter's failure too.
              if (!(err instanceof JqError || err instanceof RangeError)) throw err;
              failed = stringifyLossless(row.whole());
            }
          }
          return text;
        },
        done() {
          rows += n;
          if (failed !== undefined) run.failed ??= failed;
          return undefined;
        },
      };
    },
    end: () => ({ text: '', notes: [], warnings: [] }),
    widened: () => undefined,
    get rows() {
      return rows;
    },
  };
}
