// `prs diff`: a run like report's, two requests in flight; each answer is compared with its
// portfolio's previous one as it arrives, so at most three answers' rows are held.
import type { Deps } from '../deps.js';
import { anyChange, countsText, diffBatches } from '../diff/compare.js';
import { chooseKey, defaultKey } from '../diff/keys.js';
import { diffWriter } from '../diff/output.js';
import { familyOf, type Item, type ReportType, type Row } from '../domain.js';
import { ChangesFoundError, NoDataError } from '../errors.js';
import { collectRows } from '../rows/answer.js';
import type { ItemDone } from '../run/engine.js';
import { itemLabel } from '../run/outcomes.js';
import type { DiffOptions } from './diff.flags.js';
import { endRun, type Output, outputRun } from './output.js';

type Answer = { item: Item; type: ReportType; rows: Row[] };

export async function diff(o: DiffOptions, deps: Deps): Promise<void> {
  return outputRun(o, deps, {
    name: 'diff',
    plan: {
      dates: [...new Set(o.steps.map((s) => s.date))],
      types: o.against ? [o.type, o.against] : undefined,
    },
    run: (out) => diffRun(o, deps, out),
  });
}

async function diffRun(o: DiffOptions, deps: Deps, out: Output): Promise<void> {
  const { io } = deps;
  const service = await deps.service({ cache: o.cache });
  const { runItems } = await import('../run/engine.js');
  const { HolidayFilter } = await import('../run/holidays.js');
  const multi = o.portfolioIds.length > 1;
  const lead = [...(multi ? ['portfolioId'] : []), ...(o.each ? ['fromDate', 'toDate'] : [])];
  const writer = diffWriter({ ...out, lead });
  // The key the last pair was joined by: an output without rows still heads its columns with it.
  let key = o.key ?? [defaultKey(o.type).first];
  const items = o.portfolioIds.flatMap((portfolioId) => o.steps.map((s) => ({ portfolioId, date: s.date })));
  const sink = await out.sink();
  const holidays = new HolidayFilter();
  const previous = new Map<number, Answer>();
  let pairs = 0;
  let changed = false;
  const run = await runItems(
    items,
    async (item, ctx): Promise<ItemDone> => {
      const type = o.steps[ctx.index % o.steps.length]!.type;
      const rows = await service.report({ ...item, reportType: type }, ctx, collectRows);
      // No rows is no data, except for corporate actions, where it is a day without events.
      if (rows.length === 0 && familyOf(type) !== 'corporate actions') return { status: 'empty' };
      // In item order from here (the next item's request may be in flight meanwhile).
      await ctx.turn();
      const effective = rows[0]?.effectiveDate;
      const day = typeof effective === 'string' ? effective : undefined;
      if (o.each && !holidays.admit(item, day)) return { status: 'skipped' };
      const now: Answer = { item, type, rows };
      const before = previous.get(item.portfolioId);
      previous.set(item.portfolioId, now);
      if (!before) return { status: 'written', bytes: 0 };
      const answers = [before, now].map((a) => ({
        rows: a.rows,
        label: `${itemLabel(a.item)}${o.against ? ` (${a.type})` : ''}`,
      }));
      key = chooseKey(o.type, answers, o.key);
      // --from/--to over a holiday: the service answered the later date with the earlier one's rows.
      if (!o.each && !o.against && day !== undefined && before.rows[0]?.effectiveDate === day)
        io.note(
          `portfolio ${item.portfolioId}: ${before.item.date} and ${item.date} were both answered with the rows of ${day} (a holiday?)`,
        );
      const pairLead: Row = {
        ...(multi && { portfolioId: item.portfolioId }),
        ...(o.each && { fromDate: before.item.date, toDate: item.date }),
      };
      const batches = diffBatches(before.rows, rows, { type: o.type, key, fields: o.fields, lead: pairLead });
      let bytes = 0;
      let step = batches.next();
      for (; !step.done; step = batches.next()) {
        const text = writer.add(step.value);
        if (text === '') continue;
        if (io.isStdoutTTY) ctx.progress.stop();
        bytes += Buffer.byteLength(text);
        await sink.write(text);
      }
      const counts = step.value;
      before.rows = [];
      pairs++;
      changed ||= anyChange(counts);
      const pair = o.against ? `${item.date} ${before.type} → ${type}` : `${before.item.date} → ${item.date}`;
      io.note(`${multi ? `portfolio ${item.portfolioId}: ` : ''}${pair}: ${countsText(counts)}`);
      return { status: 'written', bytes };
    },
    await out.runOptions(
      service,
      items.map((item, i) => ({ ...item, reportType: o.steps[i % o.steps.length]!.type })),
      2,
    ),
  );
  if (run.stopped) throw run.stopped;
  const end = writer.end(key);
  await out.finish(String(end.text), pairs === 0 && out.format === 'table');
  for (const note of end.notes) if (pairs > 0) io.note(note);
  const done: [number, string] = [pairs, pairs === 1 ? 'pair compared' : 'pairs compared'];
  const hint = `check the dates (a weekend or holiday?) and the report type ${o.type}`;
  const nothing = (noData?: string) =>
    new NoDataError(`nothing to compare: ${noData ?? 'fewer than two answers'}`, { hint });
  endRun(deps, run, holidays, done, o.output && `wrote the diff to ${o.output}`, nothing);
  if (o.exitCode && changed) throw new ChangesFoundError();
}
