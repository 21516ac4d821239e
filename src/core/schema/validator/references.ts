/**
 * `$ref` resolution, done once at admission: every `$ref` in the schema becomes the pointer
 * of the subschema position it names, or a refusal saying why it cannot be one.
 *
 * Identifiers follow RFC 3986 through WHATWG `URL` (a Web API everywhere this runs): each
 * `$id` is resolved against its parent's base and starts an embedded resource; `$anchor`
 * (and a draft-07 `$id: "#name"`) names one position of its resource. A reference resolves
 * against the base of the schema it sits in, then to a resource, then either to an anchor
 * or through a JSON pointer (percent-decoded, `~1` and `~0` unescaped) from the resource's
 * root. Nothing is fetched: a reference to a resource the schema does not embed is remote,
 * and refused. So is one into data (`enum`, an unknown keyword) rather than a subschema.
 */
import { escapePointer, isSchemaObject, type Position } from '../walk.js';

/** The base of a schema with no `$id`: any absolute URL works; this one names no host. */
const DEFAULT_BASE = 'https://rulvar.invalid/schema.json';

export interface Dialect {
  /** draft-04/06/07: a `$ref` makes its siblings, `$id` included, be ignored. */
  readonly legacy: boolean;
  /** draft-04 spelled `$id` as `id`. */
  readonly draft4: boolean;
}

/** The rules a schema is read by: the old drafts when its root `$schema` names one, else 2020-12. */
export function dialectOf(root: unknown): Dialect {
  const uri = isSchemaObject(root) && typeof root['$schema'] === 'string' ? root['$schema'] : '';
  const names = (draft: string) => uri.includes(`json-schema.org/${draft}/schema`);
  return { legacy: names('draft-04') || names('draft-06') || names('draft-07'), draft4: names('draft-04') };
}

export class UnresolvableReference extends Error {
  constructor(
    readonly pointer: string,
    readonly why: string,
  ) {
    super(why);
  }
}

/**
 * The target pointer of every `$ref`, keyed by the pointer of the schema holding it.
 * Throws UnresolvableReference (pointer and reason) for the first one that does not resolve.
 */
export function resolveReferences(positions: readonly Position[], dialect: Dialect): Map<string, string> {
  const byPointer = new Map<string, Position>(positions.map((p) => [p.pointer, p]));
  const bases = new Map<Position, string>();
  const resources = new Map<string, string>([[DEFAULT_BASE, '']]);
  const anchors = new Map<string, string>();

  for (const position of positions) {
    const inherited = position.parent === undefined ? DEFAULT_BASE : (bases.get(position.parent) ?? DEFAULT_BASE);
    let base = inherited;
    const node = position.value;
    if (isSchemaObject(node)) {
      const idKeyword = dialect.draft4 ? 'id' : '$id';
      const id = node[idKeyword];
      if (typeof id === 'string' && !(dialect.legacy && '$ref' in node)) {
        const url = parse(id, inherited, `${position.pointer}/${idKeyword}`);
        if (url.hash.length > 1) {
          // "#name" (draft-07's anchor) or "uri#name": names this position, keeps the base.
          register(anchors, url.href, position.pointer, `${idKeyword} ${JSON.stringify(id.slice(0, 120))}`);
        } else {
          url.hash = '';
          base = url.href;
          register(resources, base, position.pointer, `${idKeyword} ${JSON.stringify(id.slice(0, 120))}`);
        }
      }
      const anchor = node['$anchor'];
      if (typeof anchor === 'string' && !dialect.legacy) {
        const url = parse(`#${anchor}`, base, `${position.pointer}/$anchor`);
        register(anchors, url.href, position.pointer, `$anchor ${JSON.stringify(anchor.slice(0, 120))}`);
      }
    }
    bases.set(position, base);
  }

  const targets = new Map<string, string>();
  for (const position of positions) {
    const node = position.value;
    if (!isSchemaObject(node) || typeof node['$ref'] !== 'string') continue;
    const ref = node['$ref'];
    const at = `${position.pointer}/$ref`;
    const shown = JSON.stringify(ref.slice(0, 120));
    const url = parse(ref, bases.get(position) ?? DEFAULT_BASE, at);
    const fragment = url.hash;
    url.hash = '';
    const root = resources.get(url.href);
    if (root === undefined) {
      throw new UnresolvableReference(at, `$ref ${shown} ${ref.startsWith('#') ? 'does not resolve inside the schema' : 'is a remote reference'}`);
    }
    let target: string | undefined;
    if (fragment === '' || fragment === '#') target = root;
    else if (fragment.startsWith('#/')) target = root + pointerFromFragment(fragment, at, shown);
    else target = anchors.get(`${url.href}${fragment}`);
    if (target === undefined || !byPointer.has(target)) {
      const exists = target !== undefined && rawValueAt(positions[0]?.value, target) !== undefined;
      throw new UnresolvableReference(at, `$ref ${shown} ${exists ? "points outside the schema's subschemas" : 'does not resolve inside the schema'}`);
    }
    targets.set(position.pointer, target);
  }
  return targets;
}

function parse(reference: string, base: string, pointer: string): URL {
  try {
    return new URL(reference, base);
  } catch {
    throw new UnresolvableReference(pointer, `${JSON.stringify(reference.slice(0, 120))} is not a URI reference that resolves against ${base}`);
  }
}

function register(map: Map<string, string>, uri: string, pointer: string, what: string): void {
  const known = map.get(uri);
  // The default base names the root too; a root $id naming it again is no conflict.
  if (known !== undefined && known !== pointer) throw new UnresolvableReference(pointer, `${what} identifies a second schema as ${uri}`);
  map.set(uri, pointer);
}

/** "#/a~1b/c%25d" → "/a~1b/c%d": decoded, then each token re-escaped as positions spell it. */
function pointerFromFragment(fragment: string, at: string, shown: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment.slice(1));
  } catch {
    throw new UnresolvableReference(at, `$ref ${shown} has a malformed percent-encoding`);
  }
  return decoded
    .split('/')
    .slice(1)
    .map((token) => `/${escapePointer(token.replace(/~1/g, '/').replace(/~0/g, '~'))}`)
    .join('');
}

/** The raw JSON at a pointer, whatever keyword it sits under (to tell "data" from "nothing"). */
function rawValueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const token of pointer.split('/').slice(1)) {
    const name = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}
