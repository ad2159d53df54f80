/**
 * `prs export`: report files written whole or not at all, named from the server's Content-Disposition
 * or the `<date>_<name>_index.<ext>` rule, never replacing an existing file without --force.
 * The per-response work lives in src/export/save.ts; this file loops over portfolios and dates.
 *
 * Decisions where the contract is silent:
 * - The rule's <date> is the requested date, not the rows' effectiveDate: a cron job can predict the
 *   name, it is known before the download (so -o/--name clobber checks need no request), and dates of
 *   a range never collide. The server's own name (which may carry the effective date) still wins.
 * - Two exports of one run that get the same name (a server naming two holiday dates alike, --name
 *   with several portfolios) never overwrite each other: the later gets `_<id>_<date>` before its
 *   extension. A file that existed before the run is refused (exit 10) unless --force.
 * - `[]` is no data, like an empty body: no file. A range stops at the first failure; files already
 *   written stay (each is whole) and were printed.
 * - A body that breaks off midway is a corrupt response (exit 8); only a stall past --timeout is
 *   the network's (exit 9). Not retried here.
 * - JSON is checked by a streaming grammar scan (src/export/json-scan.ts), in constant memory; zips
 *   through their central directory, every entry inflated and CRC-checked (src/export/zip.ts).
 * - --extract writes only `.csv` members, by their base name (`out/a.csv` → `a.csv`); a member that
 *   tries to leave the directory (`../x.csv`, `/x.csv`, `C:x.csv`) makes the whole export fail
 *   (exit 8) with nothing written, zip included. The zip and its CSVs are committed together: a name
 *   taken by a rival between the check and the commit takes back the files already committed (exit 10).
 * - `-o -` cannot verify before writing: bytes go out as they arrive; a short or broken body still
 *   exits 8 after the fact. A zip is never sent to a terminal.
 */
import type { Deps } from '../deps.js';
import { InterruptedError, NoDataError, UsageError } from '../errors.js';
import type { DispositionParser } from '../export/naming.js';
import type { createAtomicFile } from '../fs/atomic.js';
import { assertDirectory, assertWritableDir, assertWritableTarget } from '../fs/atomic.js';
import type { ExportFormat, ReportType } from '../input.js';

export interface ExportOptions {
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  format: ExportFormat;
  dir: string;
  /** A file path, or "-" for the raw bytes on stdout. */
  output?: string;
  name?: string;
  force: boolean;
  extract: boolean;
}

/** Test seams; the CLI passes none. */
export interface ExportSeams {
  openFile?: typeof createAtomicFile;
}

/** Writes the files and prints each path on stdout; returns the paths written. */
export async function exportCommand(
  o: ExportOptions,
  deps: Deps,
  seams: ExportSeams = {},
): Promise<string[]> {
  const { io, signal } = deps;
  const toStdout = o.output === '-';
  if (toStdout && o.format === 'csv' && io.isStdoutTTY) {
    throw new UsageError('refusing to write a zip file to the terminal', {
      hint: 'redirect it (`> file.zip`), pipe it, or drop `-o -`',
    });
  }
  // Local problems first, before any request: a cron job learns of a missing directory at once.
  if (!toStdout) {
    await (o.output === undefined ? assertDirectory(o.dir) : assertWritableDir(o.output));
    if (o.output !== undefined) await assertWritableTarget(o.output, o.force);
  }
  const service = await deps.service();
  const { saveExport, streamExport } = await import('../export/save.js');
  const parseDisposition: DispositionParser = (await import('content-disposition')).default.parse;

  const written = new Set<string>();
  const paths: string[] = [];
  const empty: string[] = [];
  const total = o.portfolioIds.length * o.dates.length;
  for (const portfolioId of o.portfolioIds) {
    for (const date of o.dates) {
      if (signal.aborted) throw new InterruptedError();
      const what = `portfolio ${portfolioId} on ${date}`;
      const progress = io.progress(`exporting ${what}`);
      const onBytes = (n: number) => progress.update(`exporting ${what}: ${formatBytes(n)}`);
      try {
        const res = await service.exportReport(
          { portfolioId, reportType: o.type, date, format: o.format },
          {
            signal,
            onWait: (ms, reason) =>
              progress.update(`exporting ${what}: waiting ${Math.ceil(ms / 1000)} s (${reason})`),
          },
        );
        if (toStdout) {
          const bytes = await streamExport(res, io.stdout, { portfolioId, date, signal, onBytes });
          if (bytes === 0) empty.push(what);
          continue;
        }
        const result = await saveExport(res, {
          portfolioId,
          date,
          format: o.format,
          dir: o.dir,
          output: o.output,
          name: o.name,
          force: o.force,
          extract: o.extract,
          signal,
          written,
          parseDisposition,
          onBytes,
          openFile: seams.openFile,
        });
        if (result.kind === 'empty') {
          empty.push(what);
          progress.stop();
          // A single export says it in its error; in a range each gap is noted and the rest goes on.
          if (total > 1) io.note(`no data for ${what}`);
          continue;
        }
        for (const p of result.paths) {
          paths.push(p);
          io.out(`${p}\n`);
        }
      } finally {
        progress.stop();
      }
    }
  }
  if (empty.length === total) {
    throw new NoDataError(
      total === 1 ? `no data for ${empty[0]}` : `no data for any of the ${total} exports`,
    );
  }
  return paths;
}

/** A byte count for the progress line: B, kB, MB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
