import type { Clock } from '../clock.js';
import type { IO } from '../io.js';
import type { Http } from '../service/http.js';
import type { Settings } from '../settings.js';
import type { Session, Store } from './types.js';

export interface SessionDeps {
  settings: Settings;
  store: Store;
  http: Http;
  clock: Clock;
  io: IO;
  signal: AbortSignal;
}

export function createSession(_d: SessionDeps): Session {
  throw new Error('session: not implemented yet');
}
