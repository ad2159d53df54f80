import { EXPORT_FORMATS, type ExportFormat } from '../domain.js';
import { checkNameTemplate } from '../fs/file-name.js';
import { parseExportFormat, parseOutput, parsePortfolioIds, resolveDates, wholeNumber } from '../input.js';
import { asUsage, type FlagRow, type FlagsOf, flag, ITEM_FLAGS, requireType, usage } from './flags.js';
import { oneItem, REPORT_FLAGS } from './report.flags.js';

const EXPORT_FORMAT_DESCRIPTIONS: Record<ExportFormat, string> = {
  json: 'the rows as one JSON file (the default)',
  csv: 'a zip of CSV files (--extract writes them out too)',
};

export const EXPORT_FLAGS = {
  ...ITEM_FLAGS,
  format: flag('-f, --format <fmt>', 'json | csv (csv arrives as a zip)', {
    default: 'json',
    complete: { values: EXPORT_FORMATS, descriptions: EXPORT_FORMAT_DESCRIPTIONS },
  }),
  dir: flag('--dir <dir>', 'directory for the files', { default: '.', complete: 'dir' }),
  output: flag(
    '-o, --output <file|->',
    'file path, or - for the raw bytes on stdout (with --extract: the CSV) (one portfolio, one date)',
    { complete: 'file' },
  ),
  name: flag(
    '--name <words>',
    'the <name> part of <date>_<name>_index.<ext> when the server sends no file name',
  ),
  nameTemplate: flag(
    '--name-template <t>',
    "file names over {date} {name} {type} {portfolio}, e.g. '{date}_{name}_{type}' (env PRS_NAME_TEMPLATE)",
  ),
  force: flag('--force', 'overwrite existing files'),
  extract: flag(
    '--extract',
    'csv: also write the CSV file(s) inside the zip; with -o -, only those, to stdout',
  ),
  skipExisting: flag('--skip-existing', 'skip items already exported here and unchanged (resume a run)'),
  parallel: flag('--parallel <n>', 'exports in flight at once, 1-8', { default: '1' }),
  failFast: REPORT_FLAGS.failFast,
  json: flag('--json', 'print a JSON array, one object per item, instead of paths'),
  dryRun: flag('--dry-run', 'send nothing: print the plan (items, requests after --skip-existing, ETA)'),
} satisfies Record<string, FlagRow>;

export type ExportOptions = ReturnType<typeof exportOptions>;

export function exportOptions(ids: string[], o: FlagsOf<typeof EXPORT_FLAGS>, now: Date) {
  const portfolioIds = parsePortfolioIds(ids);
  const type = requireType(o.type);
  const format = parseExportFormat(o.format);
  const dates = resolveDates(o, now);
  if (o.output !== undefined) oneItem('--output', portfolioIds, dates, '; use --dir for several files');
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
    ...(o.nameTemplate !== undefined && { nameTemplate: checkedTemplate(o.nameTemplate) }),
    force: !!o.force,
    extract: !!o.extract,
    skipExisting: !!o.skipExisting,
    parallel: wholeNumber('--parallel', o.parallel, 1, 8),
    failFast: !!o.failFast,
    json: !!o.json,
    dryRun: !!o.dryRun,
  };
}

const checkedTemplate = (t: string) =>
  asUsage(
    () => checkNameTemplate(t),
    (m) => `invalid --name-template "${t}": ${m}`,
  );
