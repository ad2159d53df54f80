/** File names and Content-Disposition of the export endpoint. */
import formatDisposition from 'content-disposition';

/** "<date>_<name words joined by _>_index.<ext>" — e.g. 2023-06-29_Example_600_OG_index.json. */
export function exportFileName(date: string, name: string, ext: string): string {
  const words = name.split(/\s+/).filter(Boolean);
  return `${date}_${words.join('_')}_index.${ext}`;
}

/** The name with accents dropped and anything else outside printable ASCII replaced by "_". */
export const asciiFallback = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\]/g, '_');

/**
 * RFC 6266 by the content-disposition package: a plain quoted filename, plus filename* (RFC 5987)
 * when the name is not plain ASCII (the fallback differs).
 */
export const contentDisposition = (fileName: string): string =>
  formatDisposition(fileName, { fallback: asciiFallback(fileName) });
