/**
 * Validation through @cfworker/json-schema, the one validator this library ships: it
 * interprets schemas instead of generating code, so it runs where `new Function` is refused
 * (workerd) and cannot be turned into code execution by a hostile schema. Outcomes are
 * issues a model can act on: where (instance path), which keyword, and what went wrong.
 */
import { validate as interpret, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { MAX_INSTANCE_DEPTH, MAX_INSTANCE_NODES, MAX_REPORTED_ISSUES, MAX_UNIQUE_ITEMS } from './limits.js';
import { measure } from './walk.js';

export interface ValidationIssue {
  /** JSON pointer into the validated value; '' is the value itself. */
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

export type ValidationOutcome = { readonly valid: true } | { readonly valid: false; readonly issues: readonly ValidationIssue[] };

export interface CompiledSchema {
  validate(value: unknown): ValidationOutcome;
}

const VALID: ValidationOutcome = Object.freeze({ valid: true });

export function compiledValidator(
  schema: Schema | boolean,
  lookup: Record<string, unknown>,
  options: { readonly checksUniqueness?: boolean } = {},
): CompiledSchema {
  if (schema === true) return { validate: () => VALID };
  return {
    validate(value) {
      const shape = measure(value);
      const oversized = shape.depth > MAX_INSTANCE_DEPTH
        ? `nests deeper than ${MAX_INSTANCE_DEPTH} levels`
        : shape.nodes > MAX_INSTANCE_NODES
          ? `has more than ${MAX_INSTANCE_NODES} values`
          : options.checksUniqueness === true && shape.longestArray > MAX_UNIQUE_ITEMS
            ? `has an array of more than ${MAX_UNIQUE_ITEMS} items where uniqueItems applies`
            : undefined;
      if (oversized !== undefined) return invalid([{ path: '', keyword: 'size', message: `the value ${oversized}` }]);
      let units: OutputUnit[];
      try {
        const result = interpret(value, schema, '2020-12', lookup as Record<string, Schema | boolean>, false);
        if (result.valid) return VALID;
        units = result.errors;
      } catch {
        // Depth is bounded above, so this is the validator failing on a value, not a schema:
        // report it as an invalid value rather than letting it escape.
        return invalid([{ path: '', keyword: 'validator', message: 'the value could not be validated' }]);
      }
      return invalid(units.map((unit) => ({ path: toPath(unit.instanceLocation), keyword: unit.keyword, message: unit.error })));
    },
  };
}

function invalid(issues: ValidationIssue[]): ValidationOutcome {
  return { valid: false, issues };
}

/** '#/a/0' → '/a/0'; cfworker reports instance locations as URI fragments. */
function toPath(location: string): string {
  return location.startsWith('#') ? location.slice(1) : location;
}

/**
 * One readable paragraph per failure, most specific issues first: the wrapper issues
 * ("property x does not match schema") only repeat what the leaf issues say.
 */
export function describeIssues(what: string, issues: readonly ValidationIssue[]): string {
  const specific = issues.filter((issue) => !/does not match (schema|additional properties schema)/.test(issue.message));
  const relevant = specific.length > 0 ? specific : issues;
  const shown = relevant.slice(0, MAX_REPORTED_ISSUES);
  const lines = shown.map((issue) => `- ${issue.path === '' ? '(root)' : issue.path}: ${issue.keyword}: ${issue.message}`);
  if (relevant.length > shown.length) lines.push(`- and ${relevant.length - shown.length} more`);
  return `${what}:\n${lines.join('\n')}`;
}
