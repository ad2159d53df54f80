/** `prs export`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import { type Command, Option } from 'commander';
import { EXPORT_FORMATS } from '../domain.js';
import { checkNameTemplate } from '../fs/file-name.js';
import { parseExportFormat, parseOutput, parsePortfolioIds, resolveDates } from '../input.js';
import { action, addItemOptions, type DefineContext, type Runnable } from './define.js';
import type { ExportOptions } from './export.js';
import { type DateFlags, requireType, usage } from './flags.js';

/** The flags as commander hands them over (format, dir and parallel have defaults). */
interface ExportFlags extends DateFlags {
  type?: string;
  format: string;
  dir: string;
  output?: string;
  name?: string;
  nameTemplate?: string;
  force?: boolean;
  extract?: boolean;
  skipExisting?: boolean;
  parallel: string;
  failFast?: boolean;
  json?: boolean;
  dryRun?: boolean;
}

const command: Runnable<ExportOptions> = {
  name: 'export',
  load: () => import('./export.js').then((m) => m.exportCommand),
};

export function defineExport(program: Command, ctx: DefineContext): void {
  addItemOptions(
    program
      .command('export')
      .description('download report files (JSON, or CSV in a zip), written whole or not at all')
      .argument('<portfolioId...>', 'one or more portfolio ids'),
  )
    .addOption(new Option('-f, --format <fmt>', 'json | csv (csv arrives as a zip)').default('json'))
    .option('--dir <dir>', 'directory for the files', '.')
    .option(
      '-o, --output <file|->',
      'file path, or - for the raw bytes on stdout (with --extract: the CSV) (one portfolio, one date)',
    )
    .option(
      '--name <words>',
      'the <name> part of <date>_<name>_index.<ext> when the server sends no file name',
    )
    .option(
      '--name-template <t>',
      "file names over {date} {name} {type} {portfolio}, e.g. '{date}_{name}_{type}' (env PRS_NAME_TEMPLATE)",
    )
    .option('--force', 'overwrite existing files')
    .option('--extract', 'csv: also write the CSV file(s) inside the zip; with -o -, only those, to stdout')
    .option('--skip-existing', 'skip items already exported here and unchanged (resume a run)')
    .option('--parallel <n>', 'exports in flight at once, 1-8', '1')
    .option('--fail-fast', 'stop at the first item that fails')
    .option('--json', 'print a JSON array, one object per item, instead of paths')
    .option('--dry-run', 'send nothing: print the plan (items, requests after --skip-existing, ETA)')
    .action(action(ctx, command, (ids: string[], o: ExportFlags) => exportOptions(ids, o, ctx.now())));
}

/** Flags → options; every bad combination is a UsageError before any request. */
function exportOptions(ids: string[], o: ExportFlags, now: Date): ExportOptions {
  const portfolioIds = parsePortfolioIds(ids);
  const type = requireType(o.type);
  const format = parseExportFormat(o.format);
  const dates = resolveDates(o, now);
  if (o.output !== undefined && (portfolioIds.length > 1 || dates.length > 1)) {
    throw usage('--output takes one portfolio and one date; use --dir for several files');
  }
  if (o.extract && format !== 'csv') throw usage('--extract goes with --format csv');
  if (o.json && o.output === '-') throw usage('--json cannot be used with --output -');
  if (o.name !== undefined && !/[\p{L}\p{N}]/u.test(o.name)) throw usage(`invalid --name "${o.name}"`);
  return {
    portfolioIds,
    type,
    dates,
    format,
    dir: o.dir,
    output: parseOutput(o.output, EXPORT_FORMATS),
    name: o.name,
    ...(o.nameTemplate === undefined ? {} : { nameTemplate: nameTemplate(o.nameTemplate) }),
    force: !!o.force,
    extract: !!o.extract,
    skipExisting: !!o.skipExisting,
    parallel: parseParallel(o.parallel),
    failFast: !!o.failFast,
    json: !!o.json,
    dryRun: !!o.dryRun,
  };
}

/** --name-template, checked before any request. */
function nameTemplate(t: string): string {
  try {
    return checkNameTemplate(t);
  } catch (err) {
    throw usage(`invalid --name-template "${t}": ${(err as Error).message}`);
  }
}

/** --parallel: a whole number from 1 to 8. */
export function parseParallel(v: string): number {
  if (!/^[1-8]$/.test(v.trim())) throw usage(`invalid --parallel "${v}"`, 'use a whole number from 1 to 8');
  return Number(v.trim());
}
