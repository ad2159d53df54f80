// Types for the undici modules that src/http/client.ts imports directly (see the comment there).
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.request, unbound: call it with the dispatcher as `this`. */
  export default function request(
    this: Dispatcher,
    opts: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}
