/**
 * What `unevaluatedProperties` and `unevaluatedItems` need to know: which properties and
 * items of the current value some keyword already evaluated, here or in an in-place
 * subschema ($ref, allOf, a matching anyOf branch, …) that passed.
 *
 * Tracking costs a Set per object, so it happens only where a schema uses unevaluated*: a
 * node with one of them creates an Annotations for itself, and in-place subschemas record
 * into what their parent hands them. Everywhere else the collector is undefined and no
 * keyword records anything.
 */
import type { Run } from './run.js';

/** Work units per name or index copied into a Set (calibrated, see limits.ts). */
const INSERT_COST = 3;

export class Annotations {
  /** Every property was evaluated (additionalProperties or unevaluatedProperties ran). */
  allProperties = false;
  properties: Set<string> | undefined;
  /** Every item was evaluated (items, additionalItems or unevaluatedItems ran). */
  allItems = false;
  /** Items [0, prefix) were evaluated (prefixItems, or items as an array). */
  prefix = 0;
  /** Single items `contains` matched. */
  items: Set<number> | undefined;

  /** Records a property a keyword evaluated, charged as one Set insert. */
  addProperty(name: string, run: Run): void {
    run.meter.spend(INSERT_COST);
    (this.properties ??= new Set()).add(name);
  }

  /** Records an item `contains` matched, charged as one Set insert. */
  addItem(index: number, run: Run): void {
    run.meter.spend(INSERT_COST);
    (this.items ??= new Set()).add(index);
  }

  hasProperty(name: string): boolean {
    return this.allProperties || (this.properties?.has(name) ?? false);
  }

  hasItem(index: number): boolean {
    return this.allItems || index < this.prefix || (this.items?.has(index) ?? false);
  }

  /** Adds what a passing subschema evaluated; each copied name or index is charged as an insert. */
  merge(other: Annotations, run: Run): void {
    run.meter.spend(1);
    if (other.allProperties) this.allProperties = true;
    else if (other.properties !== undefined && !this.allProperties) for (const name of other.properties) this.addProperty(name, run);
    if (other.allItems) this.allItems = true;
    else if (!this.allItems) {
      if (other.prefix > this.prefix) this.prefix = other.prefix;
      if (other.items !== undefined) for (const index of other.items) this.addItem(index, run);
    }
  }
}
