import type { english } from './en.ts';

/** A text of the catalogue as any language may word it: the English one's shape, without its words. */
type Texts<T> = T extends string
  ? string
  : T extends (...args: infer Args) => string
    ? (...args: Args) => string
    : { readonly [Key in keyof T]: Texts<T[Key]> };

/**
 * The consumer pages' texts, by section: each language's catalogue has this shape, so a key that
 * one language lacks is a type error (docs/decisions/038-consumer-languages.md).
 */
export type Catalogue = Texts<typeof english>;
