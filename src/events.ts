/**
 * What a run tells whoever watches it. The run engine, the service and main emit; the watchers
 * (the JSON log, the metrics file, the health pings) listen. No watcher can change a run: a listener
 * that throws is ignored, so a broken monitor never fails a job.
 */

/** Where a request went: the JSON report endpoint, the export endpoint, or the token endpoint. */
export type Endpoint = 'report' | 'export' | 'token';

/** What became of one portfolio × date of a run (CLI.md "Runs of many items"; export --json). */
export type ItemStatus = 'written' | 'skipped' | 'empty' | 'failed';

/** Why a run paused. */

import type { WaitReason } from './domain.js';

export interface EventItem {
  portfolioId: number;
  date: string;
}

export type RunEvent =
  /** Before the first request of a report/export run: its size and the plan's estimate. */
  | { event: 'start'; command: 'report' | 'export'; items: number; requests: number; etaMs: number }
  /** A pause before a request: the rate limit, a server's Retry-After, or a retry backoff. */
  | { event: 'wait'; waitMs: number; reason: WaitReason; item?: EventItem }
  /** One HTTP exchange finished: its status, or 0 when no answer came (network, timeout). */
  | { event: 'response'; endpoint: Endpoint; status: number; durationMs: number }
  /** One item's outcome, in item order. `bytes`: what was written for it (file or stdout). */
  | {
      event: 'item';
      item: EventItem;
      status: ItemStatus;
      path?: string;
      bytes?: number;
      exitCode?: number;
      message?: string;
    }
  /** The run is over (success, failure or interrupt): emitted once, by main, with the exit code. */
  | { event: 'end'; exitCode: number; durationMs: number };

export type RunListener = (e: RunEvent) => void;

export interface RunEvents {
  emit(e: RunEvent): void;
  /** Adds a listener; returns its removal. */
  on(listener: RunListener): () => void;
}

export function createRunEvents(): RunEvents {
  const listeners = new Set<RunListener>();
  return {
    emit(e) {
      for (const l of listeners) {
        try {
          l(e);
        } catch {
          // a watcher's fault is never the run's
        }
      }
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
