import { dirname, join } from 'node:path';
import type { Deps } from '../deps.js';
import type { Item } from '../domain.js';
import { NoDataError, PrsError, StdoutClosedError, UsageError } from '../errors.js';
import {
  assertWritableTarget,
  type createAtomicFile,
  prepareExportTarget,
  removeIfLeftEmpty,
} from '../fs/atomic.js';
import type { ItemContext, ItemDone, Outcome } from '../run/engine.js';
import { itemLabel, itemsOf, runFailure, summaryLine } from '../run/outcomes.js';
import type { Service } from '../service/types.js';
import { sizeText } from './cache.js';
import type { ExportOptions } from './export.flags.js';

export async function exportCommand(
  o: ExportOptions,
  deps: Deps,
  /** A test's seam (disk full, permission denied); the CLI passes none. */
  seams: { openFile?: typeof createAtomicFile } = {},
): Promise<string[]> {
  const { io } = deps;
  const toStdout = o.output === '-';
  if (toStdout && o.format === 'csv' && !o.extract && io.isStdoutTTY) {
    throw new UsageError('refusing to write a zip file to the terminal', {
      hint: 'redirect it (`> file.zip`), pipe it, or drop `-o -`',
    });
  }
  // A plan touches nothing on disk (not even --dir, which a real run creates).
  if (o.dryRun) {
    const { exportPlan } = await import('../run/dry-run.js');
    const dir = o.output === undefined || toStdout ? o.dir : dirname(o.output);
    await exportPlan({ ...o, dir, json: !!o.json }, deps);
    return [];
  }
  const created = toStdout ? undefined : await prepareExportTarget(o.dir, o.output);
  if (o.output !== undefined && !toStdout && !o.skipExisting)
    await assertWritableTarget(o.output, o.force, (await import('../export/save.js')).existsHint());
  try {
    const service = await deps.service();
    if (toStdout) return await exportToStdout(o, deps, service);
    return await exportFiles(o, deps, service, seams.openFile);
  } finally {
    // A --dir this run created and left empty goes again.
    await removeIfLeftEmpty(o.dir, created);
  }
}

async function exportFiles(
  o: ExportOptions,
  deps: Deps,
  service: Service,
  openFile?: typeof createAtomicFile,
): Promise<string[]> {
  const { io } = deps;
  const { saveExport } = await import('../export/save.js');
  const { openManifest, exportItemKey, describeFiles } = await import('../export/manifest.js');

  const items = itemsOf(o.portfolioIds, o.dates);
  const total = items.length;
  const dir = o.output === undefined ? o.dir : dirname(o.output);
  const settings = await deps.settings();
  const template = o.nameTemplate ?? settings.nameTemplate;
  const keyOf = (item: Item) => exportItemKey(settings, o, item);
  const manifest = total > 1 || o.skipExisting ? await openManifest(dir) : undefined;
  const { runItems } = await import('../run/engine.js');
  const { HolidayFilter } = await import('../run/holidays.js');

  const written = new Set<string>();
  const holidays = new HolidayFilter();
  /** Per portfolio: each answer's content delivered → its date and files (to find holiday repeats). */
  const delivered = new Map<number, Map<string, { date: string; paths: string[] }>>();

  const exportItem = async (item: Item, { signal, turn, onWait }: ItemContext): Promise<ItemDone> => {
    const key = keyOf(item);
    const seen =
      delivered.get(item.portfolioId) ?? delivered.set(item.portfolioId, new Map()).get(item.portfolioId)!;
    const recorded = o.skipExisting ? await manifest?.kept(key) : undefined;
    if (recorded) {
      await turn();
      const paths = recorded.map((f) => join(dir, f.name));
      if (!seen.has(recorded[0].sha256)) seen.set(recorded[0].sha256, { date: item.date, paths });
      holidays.admit(item, item.date);
      return { status: 'skipped', paths, bytes: recorded[0].bytes };
    }
    let repeatOf: { date: string; paths: string[] } | undefined;
    const result = await service.exportReport(
      { ...item, reportType: o.type, format: o.format },
      { signal, onWait },
      (res) =>
        saveExport(res, {
          ...o,
          ...item,
          template,
          signal,
          written,
          openFile,
          turn: async ({ sha256 }) => {
            await turn();
            repeatOf = seen.get(sha256);
            holidays.admit(item, repeatOf?.date ?? item.date);
            if (!repeatOf) seen.set(sha256, { date: item.date, paths: [] });
            return !repeatOf;
          },
        }),
    );
    if (result.kind === 'empty') return { status: 'empty' };
    if (result.kind === 'repeat') {
      // Recorded with the earlier item's files, so that a resume does not ask for it again.
      const files = manifest?.get(keyOf({ ...item, date: repeatOf!.date }));
      if (files) await manifest!.record(key, files);
      return { status: 'skipped', paths: repeatOf!.paths, bytes: files?.[0]?.bytes };
    }
    seen.get(result.files[0].sha256)!.paths = result.paths;
    if (manifest) await manifest.record(key, await describeFiles(result.files));
    return {
      status: result.kind === 'written' ? 'written' : 'skipped',
      paths: result.paths,
      bytes: result.files[0].bytes,
    };
  };

  const run = await runItems(items, exportItem, {
    ...deps,
    command: 'export',
    parallel: o.parallel,
    failFast: o.failFast,
    onOutcome: (r) => {
      if (r.status === 'empty' && total > 1) io.note(`no data for ${itemLabel(r.item)}`);
      if (r.status !== 'written' || o.json) return;
      for (const p of r.paths) io.out(`${p}\n`);
      // Written out before the next item starts: a reader that left (`| head -1`) costs no request.
      return io.flush();
    },
  });

  for (const note of holidays.notes()) io.note(note);
  const results = run.outcomes.map((r) => jsonOf(r, o));
  if (o.json) io.out(`${JSON.stringify(results, null, 2)}\n`);
  const count = (s: Outcome['status']) => run.outcomes.filter((r) => r.status === s).length;
  const counts = (['written', 'skipped', 'empty'] as const).map((s) => [count(s), s] as const);
  if (run.stopped) {
    if (total > 1 && run.outcomes.length > 0 && !(run.stopped instanceof StdoutClosedError))
      io.note(summaryLine(counts, run.failures));
    throw run.stopped;
  }
  const failed = runFailure(counts, run.failures);
  if (failed) throw failed;
  if (total > 1) io.note(summaryLine(counts, []));
  if (count('empty') === total) {
    throw new NoDataError(
      total === 1 ? `no data for ${itemLabel(items[0])}` : `no data for any of the ${total} exports`,
    );
  }
  return run.outcomes.flatMap((r) => (r.status === 'written' ? r.paths : []));
}

function jsonOf(r: Outcome, o: ExportOptions): Record<string, unknown> {
  const { item, paths, error } = r;
  return {
    portfolioId: item.portfolioId,
    type: o.type,
    date: item.date,
    format: o.format,
    status: r.status,
    ...(paths.length > 0 && { path: paths[0] }),
    ...(paths.length > 1 && { extracted: paths.slice(1) }),
    ...(r.bytes !== undefined && { bytes: r.bytes }),
    ...(error !== undefined && {
      error: { exitCode: r.exitCode, message: error instanceof PrsError ? error.message : String(error) },
    }),
  };
}

async function exportToStdout(o: ExportOptions, deps: Deps, service: Service): Promise<string[]> {
  const { io } = deps;
  const { extractToStdout, streamExport } = await import('../export/save.js');
  const { runItems } = await import('../run/engine.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  const what = itemLabel(items[0]!);
  const run = await runItems(
    items,
    async (item, ctx): Promise<ItemDone> => {
      ctx.progress.show(`exporting ${what}`);
      const res = await service.exportReport(
        { ...item, reportType: o.type, format: o.format },
        ctx,
        // Out of the retry loop: bytes written to stdout cannot be asked for again.
        async (res) => res,
      );
      const bytes = await (o.extract ? extractToStdout : streamExport)(res, io.stdout, {
        ...item,
        signal: ctx.signal,
        onBytes: (n) => ctx.progress.show(`exporting ${what}: ${sizeText(n)}`),
      });
      return { status: bytes === 0 ? 'empty' : 'written', bytes };
    },
    { ...deps, command: 'export' },
  );
  if (run.stopped) throw run.stopped;
  if (run.outcomes[0]?.status === 'empty') throw new NoDataError(`no data for ${what}`);
  return [];
}
