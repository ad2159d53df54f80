import { describe, expect, it } from 'vitest';
import { createFaults, createStats, type RequestRecord } from '../../../src/sandbox/controls.js';

describe('sandbox test controls', () => {
  it('a fault without an endpoint hits report and export, not the token endpoint; count runs down', () => {
    const faults = createFaults();
    faults.push({ status: 503, count: 2 });
    expect(faults.take('token')).toBeUndefined();
    expect(faults.take('report')?.status).toBe(503);
    expect(faults.take('export')?.status).toBe(503);
    expect(faults.take('report')).toBeUndefined();
  });

  it('a fault aimed at one endpoint hits only it, first in first out', () => {
    const faults = createFaults();
    faults.push({ endpoint: 'token', status: 500 });
    faults.push({ endpoint: 'token', status: 502 });
    expect(faults.take('report')).toBeUndefined();
    expect(faults.take('token')?.status).toBe(500);
    expect(faults.take('token')?.status).toBe(502);
  });

  it('stats count by endpoint, status and user, and reset', () => {
    const stats = createStats();
    const r = (endpoint: RequestRecord['endpoint'], status: number, user?: string): RequestRecord => ({
      endpoint,
      method: 'GET',
      path: '/',
      status,
      user,
      bytes: 0,
      at: 0,
    });
    stats.record(r('report', 200, 'demo'));
    stats.record(r('report', 429, 'demo'));
    stats.record(r('token', 200, 'other'));
    expect(stats.count()).toBe(3);
    expect(stats.count({ endpoint: 'report' })).toBe(2);
    expect(stats.count({ status: 200 })).toBe(2);
    expect(stats.count({ endpoint: 'report', status: 429, user: 'demo' })).toBe(1);
    stats.reset();
    expect(stats.requests).toEqual([]);
  });
});
