import type { Deps } from '../deps.js';
import type { ExportFormat, ReportType } from '../input.js';

export interface ExportOptions {
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  format: ExportFormat;
  dir: string;
  /** A file path, or "-" for the raw bytes on stdout. */
  output?: string;
  name?: string;
  force: boolean;
  extract: boolean;
}

export async function exportCommand(_o: ExportOptions, _deps: Deps): Promise<void> {
  throw new Error('export: not implemented yet');
}
