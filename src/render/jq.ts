/**
 * `--jq <filter>`: jq 1.7 (WebAssembly: jq-web) over the rows' exact JSON text, printed as GitHub CLI's
 * `--jq` prints (`jq -r -c`). Loaded only when a filter is given; the choice is in docs/performance.md.
 */
import { UsageError } from '../errors.js';

/** A filter that compiled: `run` applies it to the rows' text in `format` and gives its output lines. */
export interface JqProgram {
  /** `ndjson` (one row a line) for a filter `.[] | f`, which runs as `f` on each row; else `json`. */
  readonly format: 'json' | 'ndjson';
  /** jq's output for `input`, each result ending in a newline; a run-time error of the filter is exit 2. */
  run(input: string | Uint8Array): string;
  /** The rows' text as it is written; `end` gives the output, or throws the filter's first error. */
  collect(): { write(chunk: string | Uint8Array): void; end(): string };
}

/** Rows filtered a batch of whole lines at a time, when the filter runs on each row. */
const BATCH_BYTES = 8 * 1024 * 1024;

type JqFailure = Error & { stderr?: string };

/** jq's first error line, without its `jq: error: ` lead and the line number of our wrapper. */
function firstError(e: JqFailure): string {
  const text = e.stderr ?? e.message.replace(/^Non-zero exit code: \d+\n?/, '');
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return line
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/ at <top-level>, line \d+:$/, '')
    .trim();
}

/**
 * jq (emscripten) sets process.exitCode as a C program would: prs's own stays as it was. Over several
 * inputs (rows one a line) jq goes on after a row's error and exits 0 when the last row passes; jq-web
 * then hands its stderr to console.warn: an error there fails the run as exit 5 would.
 */
function quietly<T>(fn: () => T): T {
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
    const result = fn();
    if (error !== undefined) throw Object.assign(new Error(error), { stderr: error });
    return result;
  } finally {
    process.exitCode = before;
    console.warn = warn;
  }
}

/**
 * Loads the engine and checks that `filter` compiles, without running it on anything (it sits after
 * `empty`, so even `repeat(1)` ends at once): a filter that does not compile is a UsageError (exit 2),
 * decided before any request.
 */
export async function compileJq(filter: string): Promise<JqProgram> {
  const jq = await (await import('./jq-engine.js')).loadJq();
  // The newlines keep a trailing `# comment` from swallowing the closing parenthesis.
  try {
    quietly(() => jq.raw('null', `empty | (\n${filter}\n)`, ['-n']));
  } catch (err) {
    throw new UsageError(`--jq: the filter does not compile: ${firstError(err as JqFailure)}`, {
      hint: 'the jq manual: https://jqlang.org/manual/',
    });
  }
  // `.[] | f` is `f` on each row in turn: jq then holds one parsed row, not the whole array
  // (docs/performance.md), and a run's rows go to jq a batch at a time. Not when `f` reads inputs
  // itself (`input`, `inputs`, `input_line_number`) or stops jq (`halt`).
  const each = /^\s*\.\[\]\s*\|(.*)$/s.exec(filter)?.[1];
  const perRow = each !== undefined && !/input|halt/.test(each) ? each : undefined;
  const program: JqProgram = {
    format: perRow === undefined ? 'json' : 'ndjson',
    collect() {
      const parts: Buffer[] = [];
      let size = 0;
      let out = '';
      let failed: unknown;
      // The whole lines gathered so far (all of them at the end) through the filter; the rest waits.
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
          if (perRow !== undefined && size >= BATCH_BYTES) filterLines(false);
        },
        end() {
          filterLines(true);
          if (failed !== undefined) throw failed;
          return out;
        },
      };
    },
    run(input) {
      let out: string | undefined;
      try {
        // Compact JSON, one result per line: the lines are then given back the service's spelling.
        out = quietly(() => jq.raw(input, perRow ?? filter, ['-c', '-M']));
      } catch (err) {
        throw new UsageError(`--jq: ${firstError(err as JqFailure)}`);
      }
      if (out === undefined || out === '') return '';
      // The input's literals that jq spells otherwise: looked for only once the output may hold one
      // (an `E`), or when the input has a literal with an exponent (`100E-2` prints as `1.00`).
      const source =
        typeof input === 'string'
          ? input
          : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString();
      let spelling = /\d[eE][+-]?\d/.test(source) ? spellings(source) : undefined;
      let text = '';
      for (const line of out.split('\n')) {
        // A string prints raw (`jq -r`); anything else as compact JSON.
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

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Each number literal of `input` whose text jq 1.7 prints in another spelling (its decNumber form:
 * `0.000000000000000001` as `1E-18`, `1e5` as `1E+5`, `100E-2` as `1.00`), keyed by that spelling.
 * jq prints a computed number as a double, which never takes these forms (a lower-case `e`, no
 * trailing zero), so the map gives back only literals the filter passed through.
 */
function spellings(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [, raw] of numberTokens(text)) {
    const canonical = decimalSpelling(raw);
    if (canonical !== raw && !map.has(canonical)) map.set(canonical, raw);
  }
  return map;
}

/** The number tokens of a JSON text (outside strings), each with where it starts. */
function* numberTokens(text: string): Generator<[number, string]> {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: to its closing quote
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m) {
        yield [i, m[0]];
        i += m[0].length - 1;
      }
    }
  }
}

/** `line` with each number token that `spelling` knows put back as the service sent it. */
function respell(line: string, spelling: Map<string, string>): string {
  let out = '';
  let from = 0;
  for (const [at, token] of spelling.size === 0 ? [] : numberTokens(line)) {
    const raw = spelling.get(token);
    if (raw !== undefined) {
      out += line.slice(from, at) + raw;
      from = at + token.length;
    }
  }
  return out + line.slice(from);
}

/**
 * A number literal as jq 1.7 prints it when passed through: decNumber's to-scientific-string (the
 * General Decimal Arithmetic spec) of the literal's coefficient and exponent.
 */
export function decimalSpelling(raw: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(raw);
  if (!m) return raw;
  const [, sign, int, frac = '', exp = '0'] = m;
  let digits = (int + frac).replace(/^0+(?=\d)/, '');
  const exponent = Number(exp) - frac.length;
  if (/^0+$/.test(digits)) digits = '0';
  const adjusted = exponent + digits.length - 1;
  if (exponent <= 0 && adjusted >= -6) {
    if (exponent === 0) return sign + digits;
    const point = digits.length + exponent;
    return point > 0
      ? `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
      : `${sign}0.${'0'.repeat(-point)}${digits}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}E${adjusted >= 0 ? '+' : '-'}${Math.abs(adjusted)}`;
}
