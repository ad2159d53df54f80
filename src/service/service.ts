import type { Session } from '../auth/types.js';
import type { Clock } from '../clock.js';
import type { IO } from '../io.js';
import type { Settings } from '../settings.js';
import type { Http } from './http.js';
import type { Service } from './types.js';

export interface ServiceDeps {
  settings: Settings;
  session: Session;
  http: Http;
  clock: Clock;
  io: IO;
  signal: AbortSignal;
}

export function createService(_d: ServiceDeps): Service {
  throw new Error('service: not implemented yet');
}
