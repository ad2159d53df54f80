import type { Deps } from '../deps.js';
import type { ReportFormat, ReportType } from '../input.js';

export interface ReportOptions {
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  /** undefined: table when stdout is a terminal, else json. */
  format?: ReportFormat;
  fields?: string[];
  output?: string;
  force: boolean;
  raw: boolean;
}

export async function report(_o: ReportOptions, _deps: Deps): Promise<void> {
  throw new Error('report: not implemented yet');
}
