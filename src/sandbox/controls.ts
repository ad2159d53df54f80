export type Endpoint = 'token' | 'report' | 'export' | 'other';

export interface RequestRecord {
  endpoint: Endpoint;
  method: string;
  path: string;
  status: number;
  user?: string;
  /** Body bytes written so far (grows while a big body streams: tests see backpressure). */
  bytes: number;
  at: number;
  grant?: string;
}

type Filter = Partial<Pick<RequestRecord, 'endpoint' | 'status' | 'user'>>;

/** A misbehaviour for the next `count` (1) requests to `endpoint` (report and export); README lists them. */
export interface Fault {
  endpoint?: Endpoint;
  status?: number;
  retryAfter?: number;
  delayMs?: number;
  truncate?: boolean;
  stallMs?: number;
  count?: number;
  contentDisposition?: string;
  zip?: { bytes: number; fill: 'nul' | 'text' };
}

export function createStats() {
  const requests: RequestRecord[] = [];
  return {
    requests: requests as readonly RequestRecord[],
    record(r: RequestRecord) {
      if (requests.push(r) > 10_000) requests.splice(0, 5_000);
    },
    count: (f: Filter = {}) =>
      requests.filter((r) =>
        Object.entries(f).every(([k, v]) => v === undefined || r[k as keyof Filter] === v),
      ).length,
    reset: () => void requests.splice(0),
  };
}

export function createFaults() {
  const faults: Fault[] = [];
  return {
    push: (f: Fault) => void faults.push({ ...f }),
    take(endpoint: Endpoint): Fault | undefined {
      const i = faults.findIndex((f) =>
        f.endpoint ? f.endpoint === endpoint : /report|export/.test(endpoint),
      );
      const f = faults[i];
      if (!f) return undefined;
      f.count = (f.count ?? 1) - 1;
      if (f.count <= 0) faults.splice(i, 1);
      return f;
    },
  };
}
