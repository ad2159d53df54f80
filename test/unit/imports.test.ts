// Imports point down (DESIGN.md): no circle among src's modules, type imports and dynamic imports
// counted, and nothing below the CLI's definition imports src/cli.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The relative modules a file names: static and type imports, re-exports, import(). */
function importsOf(text: string): string[] {
  const names: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"](\.[^'"]+)['"]/gm,
    /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) names.push(m[1]!);
  return names;
}

/** The import graph of src: file → the files it imports (paths relative to src). */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = importsOf(readFileSync(file, 'utf8')).map((name) =>
      relative(SRC, resolve(dirname(file), name.replace(/\.js$/, '.ts'))),
    );
    g.set(relative(SRC, file), targets);
  }
  return g;
}

/** Tarjan's strongly connected components of more than one file (each one a circle). */
function circles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of g.keys()) if (!order.has(v)) visit(v);
  return out;
}

describe('imports point down', () => {
  const g = graph();

  it('reads the imports it must see (the check is not vacuous)', () => {
    expect(
      importsOf(
        "import type { A } from './a.js';\nexport { b } from '../b.js';\nconst c = import('./c.js');",
      ),
    ).toEqual(['./a.js', '../b.js', './c.js']);
    expect(g.get('main.ts')).toContain('cli.ts');
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
  });

  it('no circle among src modules, type imports and import() counted', () => {
    expect(circles(g)).toEqual([]);
  });

  it('no circle between directories either (a layer never imports one above it)', () => {
    const room = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);
    const rooms = new Map<string, string[]>();
    for (const [file, targets] of g) {
      const from = rooms.get(room(file)) ?? [];
      for (const t of targets) if (room(t) !== room(file)) from.push(room(t));
      rooms.set(room(file), from);
    }
    expect(circles(rooms)).toEqual([]);
  });

  it('only main.ts imports cli.ts', () => {
    const importers = [...g].filter(([, targets]) => targets.includes('cli.ts')).map(([file]) => file);
    expect(importers).toEqual(['main.ts']);
  });
});
