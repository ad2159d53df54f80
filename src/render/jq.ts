// `--jq`: jq-fast.ts's subset on the rows, else jq 1.7 (jq-web) over their JSON text; printed as `jq -r -c`.

import { createRequire } from 'node:module';
import { JsonNumber, type Row } from '../domain.js';
import { UsageError } from '../errors.js';
import { decimalSpelling } from '../json/decimal.js';
import { stringifyLossless } from '../json/lossless.js';
import { entryValue, F, Flag, Kind, keys, numberAt, type RowBatch } from '../rows/tape.js';
import { Bytes } from './bytes.js';
import { compileFast, type Filter, JqError, json, Lazy, type Site } from './jq-fast.js';
import { writeRow } from './json.js';
import type { RowWriter } from './writer.js';

declare const __filename: string;

/** jq-web: `printf %s input | jq flags filter`'s stdout less its last newline. */
interface JqWeb {
  raw(input: string | Buffer, filter: string, flags?: string[]): string | undefined;
}

export interface JqProgram {
  readonly writer?: () => RowWriter;
  /** `ndjson` (one row a line) for a filter `.[] | f`, which runs as `f` on each row. */
  readonly format: 'json' | 'ndjson';
  run(input: string | Buffer): string;
  /** The rows' text as it is written; `end` gives the output, or throws the filter's first error. */
  collect(): { write(chunk: string | Uint8Array): void; end(): Promise<string> };
}

const BATCH_BYTES = 8 * 1024 * 1024;

/** jq-web's stdout, or jq's first error line, also one it hands console.warn (it goes on after an error). */
function raw(jq: JqWeb, input: string | Buffer, filter: string, flags: string[]) {
  const before = process.exitCode;
  const warn = console.warn;
  let error: string | undefined;
  console.warn = (...args: unknown[]) => {
    error ??= String(args.at(-1))
      .split('\n')
      .find((line) => line.startsWith('jq: error'));
    if (error === undefined) warn(...args);
  };
  try {
    const out = jq.raw(input, filter, flags);
    if (error === undefined) return { out };
  } catch (err) {
    const e = err as Error & { stderr?: string };
    const text = e.stderr ?? e.message.replace(/^Non-zero exit code: \d+\n?/, '');
    error = text.split('\n').find((l) => l.trim() !== '') ?? text;
  } finally {
    process.exitCode = before;
    console.warn = warn;
  }
  const line = error!
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/ at <top-level>, line \d+:$/, '');
  return { error: line.trim() };
}

/** A filter that does not compile is exit 2 before any request; one in the fast subset is jq that does. */
export async function compileJq(filter: string, o: { fast?: boolean } = {}): Promise<JqProgram> {
  // `.[]` alone, `.[] | each`, or `map(gathered)` / `[.[] | gathered]`.
  const eachForm = /^\s*\.\[\]\s*(?:\|(.*))?$/s.exec(filter);
  const gatherForm = eachForm ? null : /^\s*(?:map\((.*)\)|\[\s*\.\[\]\s*\|(.*)\])\s*$/s.exec(filter);
  const gather = gatherForm !== null;
  const body = eachForm ? (eachForm[1] ?? '.') : (gatherForm?.[1] ?? gatherForm?.[2]);
  const fast = o.fast === false || body === undefined ? undefined : compileFast(body);
  let jq: JqWeb | undefined;
  // Through `require`: jq-web's module value is a Promise, which `import()` would adopt as a thenable.
  const load = async () => {
    jq ??= await (createRequire(__filename)('jq-web') as Promise<JqWeb>);
  };
  if (!fast) {
    await load();
    // Checked after `empty`, so even `repeat(1)` ends at once; the newlines keep a trailing `# comment`
    // from swallowing the closing parenthesis.
    const { error } = raw(jq!, 'null', `empty | (\n${filter}\n)`, ['-n']);
    if (error !== undefined)
      throw new UsageError(`--jq: the filter does not compile: ${error}`, {
        hint: 'the jq manual: https://jqlang.org/manual/',
      });
  }
  // `.[] | f` is `f` on each row in turn: jq then holds one parsed row, not the whole array, and a run's
  // rows go to jq a batch at a time. Not when `f` reads inputs itself or stops jq (`halt`).
  const each = eachForm?.[1];
  const perRow = each !== undefined && !/input|halt/.test(each) ? each : undefined;
  let fastRun: { failed?: string } | undefined;
  const program: JqProgram = {
    format: perRow === undefined ? 'json' : 'ndjson',
    writer:
      fast &&
      (() => {
        fastRun = {};
        return fastWriter(fast, gather, fastRun);
      }),
    collect() {
      const parts: Buffer[] = [];
      let size = 0;
      let out = '';
      let failed: unknown;
      const filterLines = (all: boolean) => {
        const text = Buffer.concat(parts.splice(0));
        const cut = all ? text.length : text.lastIndexOf(10) + 1;
        parts.push(text.subarray(cut));
        size = text.length - cut;
        try {
          if (failed === undefined && (cut > 0 || all)) out += program.run(text.subarray(0, cut));
        } catch (err) {
          failed = err;
        }
      };
      return {
        write(chunk) {
          if (failed !== undefined) return;
          // Copied: a spool's read-back reuses its buffer.
          const copy = Buffer.from(chunk);
          parts.push(copy);
          size += copy.length;
          if (!fastRun && perRow !== undefined && size >= BATCH_BYTES) filterLines(false);
        },
        async end() {
          if (fastRun?.failed !== undefined) {
            await load();
            program.run(gather ? `[${fastRun.failed}]` : fastRun.failed);
            throw new UsageError('--jq: the filter failed on a row');
          }
          if (fastRun) {
            const text = Buffer.concat(parts).toString();
            return gather ? `[${text.slice(1)}]\n` : text;
          }
          filterLines(true);
          if (failed !== undefined) throw failed;
          return out;
        },
      };
    },
    run(input) {
      // Compact JSON, one result per line: the lines are then given back the service's spelling.
      const { out, error } = raw(jq!, input, perRow ?? filter, ['-c', '-M']);
      if (error !== undefined) throw new UsageError(`--jq: ${error}`);
      if (out === undefined || out === '') return '';
      // Only where jq may have respelled a literal: an `E` out, or an exponent in (`100E-2` prints `1.00`).
      const source = input.toString();
      let spelling = /\d[eE][+-]?\d/.test(source) ? spellings(source) : undefined;
      let text = '';
      for (const line of out.split('\n')) {
        if (line.startsWith('"')) text += `${JSON.parse(line) as string}\n`;
        else {
          if (spelling === undefined && line.includes('E')) spelling = spellings(source);
          text += `${spelling ? respell(line, spelling) : line}\n`;
        }
      }
      return text;
    },
  };
  return program;
}

const rowBytes = new Bytes();
const own = (o: Row, key: string) => (Object.hasOwn(o, key) ? o[key] : null);

/** A batch's rows in turn (`at`), each read from the tape by key (`.isin`), not made an object for that. */
class TapeRow extends Lazy {
  private i = 0;
  private row?: Row;
  /** The row holds a lone low half: read from its object with U+FFFD there, as jq reads it. */
  private mended = false;
  constructor(
    private readonly batch: RowBatch,
    private readonly lead?: Row,
  ) {
    super();
  }

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

  /** -f json's row from the bytes; jq writes DEL escaped. */
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

/** A JSON value with every string's (and key's) lone surrogate made U+FFFD, as `lone` notes. */
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
function fastWriter(filter: Filter, gather: boolean, run: { failed?: string }): RowWriter {
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

const TOKENS = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** The literals jq 1.7 prints in decNumber's spelling (`1e5` as `1E+5`), by that spelling (never a double's). */
function spellings(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [raw] of text.matchAll(TOKENS)) {
    const canonical = raw.startsWith('"') ? raw : decimalSpelling(raw);
    if (canonical !== raw && !map.has(canonical)) map.set(canonical, raw);
  }
  return map;
}

function respell(line: string, spelling: Map<string, string>): string {
  return line.replace(TOKENS, (token) => (token.startsWith('"') ? token : (spelling.get(token) ?? token)));
}
