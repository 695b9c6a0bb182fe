import { IDENTIFIER, OTHER } from './names.ts';

/**
 * Keeps an attribute's cardinality bounded: the first `cap` distinct values pass, later new ones
 * fold into `other`. Values that do not look like identifiers fold too, so a free-text field
 * that reached an attribute by mistake can never carry text out.
 */
export class BoundedValues {
  readonly #cap: number;
  readonly #seen = new Set<string>();

  constructor(cap: number) {
    this.#cap = cap;
  }

  fold(value: string): string {
    if (this.#seen.has(value)) return value;
    if (!IDENTIFIER.test(value) || this.#seen.size >= this.#cap) return OTHER;
    this.#seen.add(value);
    return value;
  }
}
