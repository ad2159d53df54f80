/** The sandbox's test controls: the request log (`stats`) and one-shot faults (`injectFault`). */

export type Endpoint = 'token' | 'report' | 'export' | 'other';

export interface RequestRecord {
  endpoint: Endpoint;
  method: string;
  /** Path and query (no secrets travel there). */
  path: string;
  status: number;
  user?: string;
  /** The X-CLIENT-ID header as received. */
  clientIdHeader?: string;
  /** Body bytes written so far (grows while a big body streams; tests use it to see backpressure). */
  bytes: number;
  /** When the request arrived (the sandbox clock, ms since the epoch). */
  at: number;
  /** A token request's grant_type (never its secrets). */
  grant?: string;
}

export interface SandboxStats {
  /** Requests answered, optionally only those matching every given property. */
  count(filter?: { endpoint?: Endpoint; status?: number; user?: string }): number;
  /** The latest requests (at most 10,000), oldest first. */
  readonly requests: readonly RequestRecord[];
  reset(): void;
}

/** A one-shot misbehaviour for tests of retries, timeouts and corrupt bodies. */
export interface Fault {
  /** Which endpoint it hits (default: report and export). */
  endpoint?: Endpoint;
  /** Answer this status (with a Spring-style body) instead of the real answer. */
  status?: number;
  /** With `status`: send this Retry-After (seconds). */
  retryAfter?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the headers and part of the body, then drop the connection. */
  truncate?: boolean;
  /** Send the headers and part of the body, then pause this long (or until the client goes) before the rest. */
  stallMs?: number;
  /** How many requests it affects (default 1). */
  count?: number;
  /** Export answers: this Content-Disposition header instead of the sandbox's own name. */
  contentDisposition?: string;
  /**
   * Export answers (whatever the format asked): a zip of one deflated member (the export's CSV name
   * unless `member`) of `bytes` bytes, NUL bytes or one CSV line repeated — a zip bomb, or a CSV
   * that is not text, in a few kB.
   */
  zip?: { bytes: number; fill: 'nul' | 'text'; member?: string };
}

export function createStats(): SandboxStats & { record(r: RequestRecord): void } {
  let requests: RequestRecord[] = [];
  return {
    get requests() {
      return requests;
    },
    record(r) {
      requests.push(r);
      if (requests.length > 10_000) requests = requests.slice(-5_000);
    },
    count(f = {}) {
      return requests.filter(
        (r) =>
          (f.endpoint === undefined || r.endpoint === f.endpoint) &&
          (f.status === undefined || r.status === f.status) &&
          (f.user === undefined || r.user === f.user),
      ).length;
    },
    reset() {
      requests = [];
    },
  };
}

/** The queue of injected faults; each request takes the first one aimed at its endpoint. */
export function createFaults() {
  const faults: Fault[] = [];
  return {
    push(f: Fault): void {
      faults.push({ ...f });
    },
    take(endpoint: Endpoint): Fault | undefined {
      const i = faults.findIndex((f) =>
        f.endpoint === undefined ? endpoint === 'report' || endpoint === 'export' : f.endpoint === endpoint,
      );
      if (i < 0) return undefined;
      const f = faults[i];
      f.count = (f.count ?? 1) - 1;
      if (f.count <= 0) faults.splice(i, 1);
      return f;
    },
  };
}
