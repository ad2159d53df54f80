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

/** The target directory exists, is one, and may be written to (root passes the last check regardless). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
