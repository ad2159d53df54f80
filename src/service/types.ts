import type { Readable } from 'node:stream';
import type { ExportFormat, Item, ReportType, WaitReason } from '../domain.js';
import type { RowSink } from '../rows/answer.js';

export type ReportQuery = Item & { reportType: ReportType };

export interface ReportResponse {
  read(sink: RowSink): Promise<number>;
}

export interface ExportResponse {
  contentDisposition?: string;
  contentType?: string;
  contentLength?: number;
  /** Empty when there is no data. Must be consumed or destroyed. */
  body: Readable;
}

export interface LimiterState {
  stamps: number[];
  /** Send times of requests in flight; `stamps`: completion times. */
  open?: number[];
  until?: number;
}

export interface CallHooks {
  onWait?(ms: number, reason: WaitReason): void;
  /** The item's (runItems' ctx.signal), which follows the run's; else the run's signal. */
  signal?: AbortSignal;
}

export interface Service {
  /** Read by `use` inside the retry loop: a body cut off is asked for again, so `use` keeps nothing of it. */
  report<T>(q: ReportQuery, hooks: CallHooks, use: (res: ReportResponse) => Promise<T>): Promise<T>;
  /** `save` consumes the body inside the retry loop; one that returns the response takes it out of the loop. */
  exportReport<T>(
    q: ReportQuery & { format: ExportFormat },
    hooks: CallHooks,
    save: (res: ExportResponse) => Promise<T>,
  ): Promise<T>;
  limiterState?(): Promise<{ state: LimiterState; now: number } | undefined>;
  close(): Promise<void>;
}

/** What report and diff use: the answer cache stands in front of it. */
export type ReportService = Omit<Service, 'exportReport'> & {
  /** False when the answer cache will answer `q` (so the ETA leaves it out). */
  asks?(q: ReportQuery): boolean;
};
