/**
 * The kinds of resource the tool manages: the one list every layer's registry and every shared
 * shape is keyed by. A kind added here makes the type check name each piece it still lacks
 * (see CONTRIBUTING.md, "Kinds of resource"). The order is the order kinds are read, planned and
 * applied: each sees what the kinds before it planned or did.
 */
export const KINDS = ['business', 'adGroupLink', 'audience', 'image'] as const;

export type KindName = (typeof KINDS)[number];

/** One part per kind, no kind left out: what a kind adds to a shared shape (`{}` when nothing). */
export type PerKind = { readonly [K in KindName]: unknown };

/** Accepts only parts with one for every kind of KINDS: where a kind has none, the type check names it, there. */
export type EveryKind<Parts extends PerKind> = Parts;

/** The shared shape made of every kind's part (the live state, what a saved plan is checked against). */
export type Merged<Parts extends PerKind> = UnionToIntersection<Parts[keyof Parts]>;

/** One kind's part (never while it has none: EveryKind says so where the parts are declared). */
export type PartOf<Parts, K extends KindName> = K extends keyof Parts ? Parts[K] : never;

type UnionToIntersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void
  ? I
  : never;

/** A registry's entries in the order of KINDS, leaving out the kinds it has nothing for (null). */
export function inKindOrder<T>(registry: { readonly [K in KindName]: T | null }): T[] {
  return KINDS.flatMap((name) => {
    const entry = registry[name];
    return entry === null ? [] : [entry];
  });
}
