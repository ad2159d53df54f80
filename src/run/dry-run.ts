import { answerKey, type CacheUse, cacheableDate, storeFor } from '../cache/answers.js';
import { durationText, isoSeconds } from '../clock.js';
import type { Deps } from '../deps.js';
import type { ExportFormat, ReportType, RunCommand } from '../domain.js';
import { plural } from '../errors.js';
import type { LimiterState } from '../service/types.js';
import { type RateLimit, rateText } from '../settings.js';
import { itemsOf } from './outcomes.js';
import { planRequests } from './plan.js';

export type RunPlan = ReturnType<typeof planRun>;

interface PlanInput {
  command: RunCommand;
  items: number;
  cached?: number;
  skipped?: number;
  limiter?: { state: LimiterState; now: number; rate: RateLimit };
}

export function planRun(p: PlanInput) {
  const cached = p.cached ?? 0;
  const skipped = p.skipped ?? 0;
  const requests = Math.max(0, p.items - cached - skipped);
  const base = { command: p.command, items: p.items, cached, skipped, requests };
  if (!p.limiter) return { ...base, rateLimit: null, waitMs: 0, etaMs: null, until: null };
  const { state, now, rate } = p.limiter;
  const times = planRequests(requests, state, now, rate);
  return {
    ...base,
    rateLimit: { limit: rate.limit, windowMs: rate.windowMs },
    waitMs: times.waitMs,
    etaMs: times.waitMs,
    until: requests > 0 ? isoSeconds(times.lastAt) : null,
  };
}

export function planLines(p: RunPlan): string[] {
  const lines = [`dry run: ${p.items} ${plural(p.items, 'item')}, nothing sent`];
  if (p.command !== 'export') lines.push(`answered from the cache: ${p.cached}`);
  else lines.push(`already exported (--skip-existing): ${p.skipped}`);
  lines.push(`requests to send: ${p.requests}`);
  if (p.rateLimit && p.etaMs !== null) {
    const rate = rateText(p.rateLimit);
    lines.push(
      p.requests === 0
        ? `waits: none (rate limit ${rate})`
        : `waits at ${rate} from the limiter's state now: ${durationText(p.waitMs)}, the last request at ${p.until}`,
    );
  } else {
    lines.push('the export endpoint has no client-side rate limit: its time is the service’s');
  }
  return lines;
}

/** Even with -q: asked for. */
function show(deps: Deps, plan: RunPlan, json: boolean): RunPlan {
  if (json) deps.io.out(`${JSON.stringify(plan, null, 2)}\n`);
  else for (const line of planLines(plan)) deps.io.err(line);
  return plan;
}

interface ReportPlanOptions {
  command: 'report' | 'diff';
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  cache?: CacheUse;
  json: boolean;
  types?: readonly ReportType[];
}

/** Counts the fresh cache entries without marking them used. */
export async function reportPlan(o: ReportPlanOptions, deps: Deps): Promise<RunPlan> {
  const s = await deps.settings();
  const types = o.types ?? [o.type];
  const items = itemsOf(o.portfolioIds, o.dates);
  const store = o.cache === 'use' || o.cache === undefined ? storeFor(s, deps.clock) : undefined;
  const now = deps.clock.now();
  let cached = 0;
  for (const item of items) {
    if (!store || !cacheableDate(item.date, now)) continue;
    for (const reportType of types) {
      const key = answerKey(s, { portfolioId: item.portfolioId, reportType, date: item.date });
      if (key && store.peek(s.profile, key, s.cacheMaxAgeMs!)) cached++;
    }
  }
  const { peekLimiter } = await import('../service/service.js');
  const limiter = { ...(await peekLimiter(s, { clock: deps.clock, io: deps.io })), rate: s.rateLimit };
  const count = items.length * types.length;
  return show(deps, planRun({ command: o.command, items: count, cached, limiter }), o.json);
}

interface ExportPlanOptions {
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  format: ExportFormat;
  extract: boolean;
  skipExisting?: boolean;
  nameTemplate?: string;
  dir: string;
  json: boolean;
}

export async function exportPlan(o: ExportPlanOptions, deps: Deps): Promise<RunPlan> {
  const s = await deps.settings();
  const items = itemsOf(o.portfolioIds, o.dates);
  let skipped = 0;
  if (o.skipExisting) {
    const { openManifest, exportItemKey } = await import('../export/manifest.js');
    const manifest = await openManifest(o.dir);
    for (const item of items) if (await manifest.kept(exportItemKey(s, o, item))) skipped++;
  }
  // Base URL and tenant are checked as in the real run.
  const { target } = await import('../service/service.js');
  target(s);
  return show(deps, planRun({ command: 'export', items: items.length, skipped }), o.json);
}
