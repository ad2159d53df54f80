/** The service adapter's interface: the two endpoints of spec §4, behind retries, the limiter and re-auth. */
import type { Readable } from 'node:stream';
import type { ExportFormat, ReportType } from '../domain.js';

export interface ReportQuery {
  portfolioId: number;
  reportType: ReportType;
  date: string;
}

import type { RowSink } from '../rows/answer.js';

export type { RowSink };

/**
 * A report answer whose headers came: its body is read once, through the row stream (rows/answer.ts).
 * `read` resolves with the number of rows once the whole body is a report ({report: []}, [] and an
 * empty body have none); a body that is not rejects with the malformed-response ServiceError (exit 8),
 * one cut off with its NetworkError.
 */
export interface ReportResponse {
  read(sink: RowSink): Promise<number>;
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
  /**
   * One report answer, read by `use` inside the service's one retry loop: a body that breaks off (a
   * NetworkError from `read`) is asked for again and `use` runs again on the new answer, so `use` must
   * keep nothing of a failed attempt (it spools the answer's output and hands the spool back). Any
   * other error of `use` ends the call.
   */
  report<T>(q: ReportQuery, hooks: CallHooks, use: (res: ReportResponse) => Promise<T>): Promise<T>;
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
