import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';

/** A path into the parsed file: map keys and list indexes, as in a JSON pointer. */
export type Path = ReadonlyArray<string | number>;

/** 1-based, in the units editors count (UTF-16 code units). */
export interface Position {
  line: number;
  column: number;
}

/** RFC 6901: `/audiences/0/ages`. */
export function toPointer(path: Path): string {
  return path.map((segment) => '/' + String(segment).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

export function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `audiences[0].ages[1]`: how a path reads in a message. */
export function toLabel(path: Path): string {
  let label = '';
  for (const segment of path) {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) label += `[${segment}]`;
    else label += label === '' ? segment : `.${segment}`;
  }
  return label;
}

/**
 * Finds where a path was written: the key of a map entry (`target: 'key'`, for a field that
 * is unknown or not allowed) or its value. It follows aliases and merge keys to the text
 * that holds the value, and stops at the deepest node it can find, so a position is always
 * returned even for a path the text does not spell out.
 */
export function createLocator(
  doc: Document,
  lineCounter: LineCounter,
): (path: Path, target?: 'key' | 'value') => Position {
  const indexes = new WeakMap<Node, Map<string, Pair>>();

  const resolve = (node: unknown): Node | undefined => {
    const resolved = isAlias(node) ? node.resolve(doc) : node;
    return resolved !== null && typeof resolved === 'object' && 'range' in resolved ? (resolved as Node) : undefined;
  };

  const pairsOf = (map: Node): Map<string, Pair> => {
    let index = indexes.get(map);
    if (index) return index;
    index = new Map();
    if (isMap(map)) {
      const merged: Pair[] = [];
      for (const pair of map.items) {
        if (isScalar(pair.key) && typeof pair.key.value === 'symbol') merged.push(pair);
        else if (isScalar(pair.key)) index.set(String(pair.key.value), pair);
      }
      // Keys written in the map win over merged ones, as in the loaded value.
      for (const mergePair of merged) {
        const sources = isSeq(mergePair.value) ? mergePair.value.items : [mergePair.value];
        for (const source of sources) {
          const target = resolve(source);
          if (!target) continue;
          for (const [key, pair] of pairsOf(target)) if (!index.has(key)) index.set(key, pair);
        }
      }
    }
    indexes.set(map, index);
    return index;
  };

  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: Math.max(1, line), column: Math.max(1, col) };
  };

  return (path, target = 'value') => {
    let node = resolve(doc.contents);
    if (!node) return { line: 1, column: 1 };
    let pair: Pair | undefined;
    for (const [index, segment] of path.entries()) {
      const last = index === path.length - 1;
      let next: Node | undefined;
      if (isSeq(node)) {
        const item: unknown = node.items[Number(segment)];
        next = resolve(isPair(item) ? item.key : item);
        pair = undefined;
      } else if (isMap(node)) {
        const found = pairsOf(node).get(String(segment));
        if (found) {
          pair = found;
          next = resolve(found.value) ?? resolve(found.key);
        }
      }
      if (!next) return start(node);
      if (last && target === 'key' && pair) return start(resolve(pair.key) ?? next);
      node = next;
    }
    // An empty value (`ages:`) has no text of its own: point at its key.
    if (pair && node.range && node.range[0] === node.range[1]) return start(resolve(pair.key) ?? node);
    return start(node);
  };

  function start(node: Node): Position {
    return at(node.range?.[0] ?? 0);
  }
}
