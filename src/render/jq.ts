// `--jq`: jq-fast.ts's subset on the rows, else jq 1.7 (jq-web) over their JSON text; printed as `jq -r -c`.

import { createRequire } from 'node:module';
import { UsageError } from '../errors.js';
import { decimalSpelling } from '../json/decimal.js';
import { compileFast, fastWriter, TOKENS } from './jq-fast.js';

declare const __filename: string;

/** jq-web: `printf %s input | jq flags filter`'s stdout less its last newline. */
interface JqWeb {
  raw(input: string | Buffer, filter: string, flags?: string[]): string | undefined;
}

export type JqProgram = Awaited<ReturnType<typeof compileJq>>;

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
export async function compileJq(filter: string, o: { fast?: boolean } = {}) {
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
    // After `empty`, so even `repeat(1)` ends at once; on lines of its own, so a `# comment` may end it.
    const { error } = raw(jq!, 'null', `empty | (\n${filter}\n)`, ['-n']);
    if (error !== undefined)
      throw new UsageError(`--jq: the filter does not compile: ${error}`, {
        hint: 'the jq manual: https://jqlang.org/manual/',
      });
  }
  // `.[] | f` runs as `f` on each row, a batch at a time (jq holds one row), unless `f` reads input or halts.
  const each = eachForm?.[1];
  const perRow = each !== undefined && !/input|halt/.test(each) ? each : undefined;
  let fastRun: { failed?: string } | undefined;
  const program = {
    /** `ndjson` (one row a line) for a filter `.[] | f`, which runs as `f` on each row. */
    format: perRow === undefined ? ('json' as const) : ('ndjson' as const),
    writer:
      fast &&
      (() => {
        fastRun = {};
        return fastWriter(fast, gather, fastRun);
      }),
    /** The rows' text as it is written; `end` gives the output, or throws the filter's first error. */
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
        write(chunk: string | Uint8Array) {
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
    run(input: string | Buffer): string {
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
