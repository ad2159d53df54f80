import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, Zip, ZipDeflate, ZipPassThrough, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { isCsvEntry, memberFileName, verifyZip, ZipError } from '../../../src/export/zip.js';
import { tempDir } from '../../helpers/run.js';

const tmp = tempDir('prs-zip-');
afterAll(() => tmp.cleanup());
let n = 0;
const file = (data: Uint8Array) => {
  const p = join(tmp.path, `z${n++}.zip`);
  writeFileSync(p, data);
  return p;
};

const csv = 'Effective Date,ISIN\n2024-05-01,CH0102878927\n'.repeat(200);
const good = zipSync({ '2024-05-01_Example_index.csv': strToU8(csv), 'notes.txt': strToU8('hi') });
const stored = zipSync({ 'a.csv': [strToU8(csv), { level: 0 }] });

/** A zip written by fflate's streaming Zip: sizes and CRCs in data descriptors after the data. */
function streamedZip(): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  const a = new ZipDeflate('s.csv', { level: 6 });
  zip.add(a);
  a.push(strToU8(csv), true);
  const b = new ZipPassThrough('t.csv');
  zip.add(b);
  b.push(strToU8('x,y\n'), true);
  zip.end();
  return Buffer.concat(parts);
}

/**
 * The same archive as zip64 writers lay it out (APPNOTE 4.3.14, 4.5.3): each central directory entry
 * with its sizes and local header offset set to 0xFFFFFFFF and the real values, in that order, in a
 * zip64 extra field (id 1); a zip64 end record and its locator before an end record whose count, size
 * and offset say 0xFFFF / 0xFFFFFFFF. `damage` breaks one part, for the rejection tests.
 */
function asZip64(zip: Uint8Array, damage?: 'no-locator' | 'short-extra' | 'no-extra'): Buffer {
  const src = Buffer.from(zip);
  const eocd = src.length - 22;
  const count = src.readUInt16LE(eocd + 10);
  const cdOffset = src.readUInt32LE(eocd + 16);
  const entries: Buffer[] = [];
  for (let p = cdOffset, n = 0; n < count; n++) {
    const nameLength = src.readUInt16LE(p + 28);
    const extraLength = src.readUInt16LE(p + 30);
    const commentLength = src.readUInt16LE(p + 32);
    const head = Buffer.from(src.subarray(p, p + 46));
    const name = src.subarray(p + 46, p + 46 + nameLength);
    const extra = Buffer.alloc(4 + 24);
    extra.writeUInt16LE(1, 0);
    extra.writeUInt16LE(24, 2);
    extra.writeBigUInt64LE(BigInt(head.readUInt32LE(24)), 4); // size
    extra.writeBigUInt64LE(BigInt(head.readUInt32LE(20)), 12); // compressed size
    extra.writeBigUInt64LE(BigInt(head.readUInt32LE(42)), 20); // local header offset
    for (const at of [20, 24, 42]) head.writeUInt32LE(0xffffffff, at);
    const z64 =
      damage === 'no-extra' ? Buffer.alloc(0) : damage === 'short-extra' ? extra.subarray(0, 20) : extra;
    if (damage === 'short-extra') z64.writeUInt16LE(16, 2);
    head.writeUInt16LE(z64.length + extraLength, 30);
    const rest = src.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength + commentLength);
    entries.push(head, name, z64, rest);
    p += 46 + nameLength + extraLength + commentLength;
  }
  const cd = Buffer.concat(entries);
  const end64At = cdOffset + cd.length;
  const end64 = Buffer.alloc(56);
  end64.writeUInt32LE(0x06064b50, 0);
  end64.writeBigUInt64LE(44n, 4);
  end64.writeUInt16LE(45, 12);
  end64.writeBigUInt64LE(BigInt(count), 24);
  end64.writeBigUInt64LE(BigInt(count), 32);
  end64.writeBigUInt64LE(BigInt(cd.length), 40);
  end64.writeBigUInt64LE(BigInt(cdOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(end64At), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.from(src.subarray(eocd));
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  const parts = [
    src.subarray(0, cdOffset),
    cd,
    end64,
    damage === 'no-locator' ? Buffer.alloc(0) : locator,
    end,
  ];
  return Buffer.concat(parts);
}

async function contentOf(path: string, name: string) {
  const chunks: Uint8Array[] = [];
  await verifyZip(path, undefined, async (e) =>
    e.name === name
      ? (d) => {
          chunks.push(d);
        }
      : undefined,
  );
  return Buffer.concat(chunks).toString('utf8');
}

describe('zip check', () => {
  it.each([
    ['deflated', good],
    ['stored', stored],
    ['streamed with data descriptors', streamedZip()],
    ['empty archive', zipSync({})],
  ])('accepts a good zip (%s)', async (_what, data) => {
    await expect(verifyZip(file(data))).resolves.toBeInstanceOf(Array);
  });

  it('reads entries back byte for byte', async () => {
    const p = file(good);
    expect(await contentOf(p, '2024-05-01_Example_index.csv')).toBe(csv);
    expect(await contentOf(file(streamedZip()), 's.csv')).toBe(csv);
    expect((await verifyZip(p)).filter(isCsvEntry).map((e) => e.name)).toEqual([
      '2024-05-01_Example_index.csv',
    ]);
  });

  it('reads big entries back exactly, whatever the compression ratio (inflated piece by piece)', async () => {
    // Highly compressible (~1000-fold) but under the 1 MiB floor of the zip-bomb rule; and 8 MiB of
    // text that compresses like real CSV (a few-fold), 5 MB.
    const repetitive = Buffer.alloc(1024 * 1024, 'a,b,c\n');
    const mixed = Buffer.concat(
      Array.from({ length: 150_000 }, (_, i) =>
        Buffer.from(
          `${i},${(i * 7919) % 10007},${((i * 2654435761) >>> 0).toString(36)},${'x'.repeat(i % 30)}\n`,
        ),
      ),
    );
    expect(mixed.length).toBeGreaterThan(4 * 1024 * 1024);
    const p = file(zipSync({ 'r.csv': repetitive, 'm.csv': [mixed, { level: 9 }] }));
    await verifyZip(p);
    expect((await contentOf(p, 'r.csv')) === repetitive.toString()).toBe(true);
    expect((await contentOf(p, 'm.csv')) === mixed.toString()).toBe(true);
  });

  describe('zip bombs and binary CSV (CLI.md zip safety)', () => {
    const nul = (n: number) => Buffer.alloc(n);
    /** The directory's sizes rewritten to look innocent: only the inflating can tell. */
    const lying = (data: Uint8Array) => {
      const copy = Buffer.from(data);
      const cd = copy.lastIndexOf(Buffer.from([0x50, 0x4b, 1, 2]));
      copy.writeUInt32LE(copy.readUInt32LE(cd + 20) * 50, cd + 24);
      return copy;
    };
    it.each([
      [
        'a 4 MiB member of NUL bytes (~1000-fold)',
        zipSync({ 'x.bin': nul(4 * 1024 * 1024) }),
        /inflates more than 100-fold/,
      ],
      [
        'a 2 MiB CSV of one line repeated',
        zipSync({ 'x.csv': Buffer.alloc(2 * 1024 * 1024, 'a,b\n') }),
        /inflates more than 100-fold/,
      ],
      [
        'the same with the directory claiming a small size',
        lying(zipSync({ 'x.bin': nul(4 * 1024 * 1024) })),
        /inflates more than 100-fold|longer than declared/,
      ],
      [
        'a small CSV member with a NUL byte',
        zipSync({ 'x.csv': strToU8('a,b\n1,\u00002\n') }),
        /holds NUL bytes/,
      ],
      ['64 kB of NUL named .csv (under the floor)', zipSync({ 'x.csv': nul(65536) }), /holds NUL bytes/],
      [
        'many small members that together inflate past the rule',
        zipSync(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`m${i}.bin`, nul(1000 * 1024)]))),
        /the zip inflates more than 100-fold/,
      ],
    ])('refuses %s', async (_what, data, message) => {
      const p = file(data);
      await expect(verifyZip(p)).rejects.toThrow(ZipError);
      await expect(verifyZip(p)).rejects.toThrow(message);
    });

    it('stops at the first MiB past the line, whatever the member declares', async () => {
      let seen = 0;
      const count = async () => (d: Uint8Array) => {
        seen += d.length;
      };
      const p = file(zipSync({ 'x.bin': nul(64 * 1024 * 1024) }));
      await expect(verifyZip(p, undefined, count)).rejects.toThrow(/inflates more than 100-fold/);
      // Refused from the directory's word: nothing inflated at all.
      expect(seen).toBe(0);
      // The directory lies (50-fold, under the rule): inflating stops where the bytes cross it, after
      // about 3 of the 64 MiB, not at the end.
      seen = 0;
      const bomb = zipSync({ 'x.bin': nul(64 * 1024 * 1024) });
      const compressed = Buffer.from(bomb).readUInt32LE(
        Buffer.from(bomb).lastIndexOf(Buffer.from([0x50, 0x4b, 1, 2])) + 20,
      );
      await expect(verifyZip(file(lying(bomb)), undefined, count)).rejects.toThrow(
        /inflates more than 100-fold|longer than declared/,
      );
      expect(seen).toBeGreaterThan(0);
      expect(seen).toBeLessThanOrEqual(50 * compressed + 4096);
      expect(seen).toBeLessThan(8 * 1024 * 1024);
    });

    it.each([
      ['900 kB of NUL bytes outside a CSV member', zipSync({ 'x.bin': nul(900 * 1024) })],
      [
        '900 kB of one CSV line repeated (~1000-fold, under the 1 MiB floor)',
        zipSync({ 'y.csv': Buffer.alloc(900 * 1024, 'a,b\n') }),
      ],
    ])('accepts %s', async (_what, data) => {
      await expect(verifyZip(file(data))).resolves.toHaveLength(1);
    });
  });

  const flip = (data: Uint8Array, at: number) => {
    const copy = Buffer.from(data);
    copy[at] ^= 0xff;
    return copy;
  };
  const cdCrcOffset = (data: Uint8Array) =>
    Buffer.from(data).lastIndexOf(Buffer.from([0x50, 0x4b, 1, 2])) + 16;

  it.each([
    ['empty file', new Uint8Array(0), /not a zip/],
    ['JSON instead', strToU8('[{"a":1}]'.repeat(10)), /not a whole zip/],
    ['truncated to half', good.subarray(0, good.length >> 1), /not a whole zip/],
    ['last byte missing', good.subarray(0, good.length - 1), /not a whole zip/],
    ['a CRC that does not match', flip(good, cdCrcOffset(good)), /CRC/],
    ['a damaged stored byte', flip(stored, 40), /CRC/],
    ['damaged deflate data', flip(good, 60), /corrupt|CRC|longer|shorter/],
  ])('rejects %s', async (_what, data, message) => {
    const p = file(data);
    await expect(verifyZip(p)).rejects.toThrow(ZipError);
    await expect(verifyZip(p)).rejects.toThrow(message);
  });

  it('reads a zip64 archive (sizes and offsets in the zip64 fields) exactly as its plain twin', async () => {
    const plain = zipSync({ 'a.csv': strToU8(csv), 'sub/b.csv': [strToU8('x,y\n1,2\n'), { level: 0 }] });
    const p64 = file(asZip64(plain));
    const want = await verifyZip(file(plain));
    expect(want).toHaveLength(2);
    expect(await verifyZip(p64)).toEqual(want);
    await verifyZip(p64);
    expect(await contentOf(p64, 'a.csv')).toBe(csv);
    expect(await contentOf(p64, 'sub/b.csv')).toBe('x,y\n1,2\n');
    // Data descriptors (a streaming writer) and zip64 together.
    const streamed64 = file(asZip64(streamedZip()));
    expect(await contentOf(streamed64, 's.csv')).toBe(csv);
  });

  it.each([
    ['no-locator', /zip64 end locator missing/],
    ['short-extra', /zip64 extra field is corrupt/],
    ['no-extra', /zip64 extra field missing/],
  ] as const)('rejects a zip64 archive with %s', async (damage, message) => {
    const p = file(asZip64(good, damage));
    await expect(verifyZip(p)).rejects.toThrow(ZipError);
    await expect(verifyZip(p)).rejects.toThrow(message);
  });

  it('rejects encrypted entries and unknown methods', async () => {
    const data = Buffer.from(stored);
    const cd = data.lastIndexOf(Buffer.from([0x50, 0x4b, 1, 2]));
    data.writeUInt16LE(1, cd + 8);
    await expect(verifyZip(file(data))).rejects.toThrow(/encrypted/);
    data.writeUInt16LE(0, cd + 8);
    data.writeUInt16LE(12, cd + 10);
    await expect(verifyZip(file(data))).rejects.toThrow(/compression method/);
  });
});

describe('memberFileName', () => {
  it.each([
    ['2024-05-01_x.csv', '2024-05-01_x.csv'],
    ['reports/2024/x.csv', 'x.csv'],
    ['reports\\x.csv', 'x.csv'],
    ['.hidden.csv', 'hidden.csv'],
  ])('%j → %j', (name, want) => {
    expect(memberFileName(name)).toBe(want);
  });

  it.each([
    '../escape.csv',
    'a/../../escape.csv',
    '..\\escape.csv',
    '/etc/x.csv',
    '\\x.csv',
    'C:x.csv',
    'a\u0000.csv',
    '..',
  ])('refuses %j', (name) => {
    expect(() => memberFileName(name)).toThrow(ZipError);
  });
});
