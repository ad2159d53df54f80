/** The service adapter's interface: the two endpoints of spec §4, behind retries, the limiter and re-auth. */
import type { Readable } from 'node:stream';
import type { ExportFormat, ReportType, Row } from '../domain.js';

export interface ReportQuery {
  portfolioId: number;
  reportType: ReportType;
  date: string;
}

export interface ReportResponse {
  /** The body exactly as received (for --raw, and for the formats rendered straight from it: render/direct.ts). */
  bytes: Buffer;
  /**
   * The rows, parsed on first call (a large body is parsed only when something needs its rows);
   * [] for every no-data answer ({report: []}, [], empty body). A body that is not a report throws
   * the malformed-response ServiceError (exit 8).
   */
  rows(): Row[];
  /**
   * Nothing reads `bytes` or calls `rows` any more (its output was written): the next answer may
   * reuse its memory (json/arena.ts). Optional to call: an answer never released keeps its own.
   */
  release?(): void;
}

export interface ExportResponse {
  /** Raw Content-Disposition header, if any. */
  contentDisposition?: string;
  contentType?: string;
  /** Declared length, when sent. */
  contentLength?: number;
  /** The body; empty (zero bytes) when there is no data. Must be consumed or destroyed. */
  body: Readable;
}

/** The shared limiter's record (service/limiter.ts). */
export interface LimiterState {
  /** Completion times of recent requests. */
  stamps: number[];
  /** Send times of requests still in flight. */
  open?: number[];
  until?: number;
}

export interface CallHooks {
  /** Called before a pause: for the rate limit, a server Retry-After, or a retry backoff. */
  onWait?(ms: number, reason: 'rate-limit' | 'retry-after' | 'backoff'): void;
  signal?: AbortSignal;
}

export interface Service {
  report(q: ReportQuery, hooks?: CallHooks): Promise<ReportResponse>;
  exportReport(q: ReportQuery & { format: ExportFormat }, hooks?: CallHooks): Promise<ExportResponse>;
  /**
   * The export with its body consumed by `save` inside the service's one retry loop: a download
   * that stalls past --timeout after its headers (a NetworkError from `save`) is asked for again, as a
   * request that failed before them is (CLI.md: retried, then exit 9). Any other error of `save` ends
   * the call. Safe: a stalled download never reached its commit, and its temporary file is gone.
   */
  exportReportWith<T>(
    q: ReportQuery & { format: ExportFormat },
    hooks: CallHooks,
    save: (res: ExportResponse) => Promise<T>,
  ): Promise<T>;
  /**
   * The shared limiter's state now, read without taking a slot (no request, no HTTP client): what a
   * run's ETA and 10-minute notice plan from. Absent where no limiter is at hand (the answer cache).
   */
  limiterState?(): Promise<{ state: LimiterState; now: number }>;
  close(): Promise<void>;
}
