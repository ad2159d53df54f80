/** What a run tells its watchers (JSON log, metrics file, pings); a watcher that throws is ignored. */
import type { Item, RunCommand, WaitReason } from './domain.js';

export type Endpoint = 'report' | 'export' | 'token';

export const ITEM_STATUSES = ['written', 'skipped', 'empty', 'failed'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export type RunEvent =
  | { event: 'start'; command: RunCommand; items: number; requests: number; etaMs: number }
  | { event: 'wait'; waitMs: number; reason: WaitReason; item?: Item }
  | { event: 'response'; endpoint: Endpoint; status: number; durationMs: number }
  | {
      event: 'item';
      item: Item;
      status: ItemStatus;
      path?: string;
      bytes?: number;
      exitCode?: number;
      message?: string;
    }
  | { event: 'end'; exitCode: number; durationMs: number };

type RunListener = (e: RunEvent) => void;

export type RunEvents = ReturnType<typeof createRunEvents>;

export function createRunEvents() {
  const listeners = new Set<RunListener>();
  return {
    emit(e: RunEvent) {
      for (const l of listeners) {
        try {
          l(e);
        } catch {}
      }
    },
    on(listener: RunListener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
