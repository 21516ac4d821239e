/**
 * `resolveToolset`: the one place a toolset is put together, for native tools and every
 * source alike. Registered names are expanded first (an unknown name refuses before any
 * source is contacted), sources are expanded concurrently, every tool is admitted and
 * checked (final name, duplicates across the whole toolset), and the result is frozen with
 * its identity hashes. A later list_changed on a source never reaches a resolved toolset.
 */
import { ConfigError, RulvarError, SourceError, describeCause } from '../errors.js';
import { admitToolFresh } from '../schema/admitted-tools.js';
import { assertToolName, quoteName } from '../tools/names.js';
import { authorityHash, toolsetHashWithForms, type SchemaForms } from './toolset-hash.js';
import type { ToolDef, ToolSource, ToolSourceSession } from '../tools/types.js';

export type ToolsOption = ReadonlyArray<ToolDef | ToolSource | string>;

export interface ResolveOptions {
  /** Registered toolsets that string entries name. */
  readonly toolsets?: Readonly<Record<string, ToolsOption>>;
  readonly session?: ToolSourceSession;
}

export interface ResolvedToolset {
  readonly tools: readonly ToolDef[];
  readonly toolsetHash: string;
  readonly authorityHash: string;
  get(name: string): ToolDef | undefined;
}

type Entry = ToolDef | ToolSource;

export async function resolveToolset(tools: ToolsOption, options: ResolveOptions = {}): Promise<ResolvedToolset> {
  const entries = expandNames(tools, options.toolsets ?? {});
  const expanded = await Promise.all(
    entries.map(async (entry): Promise<{ origin: string; tools: readonly ToolDef[] }> =>
      isToolSource(entry)
        ? { origin: `source ${quoteName(entry.id)}`, tools: await expandSource(entry, options.session) }
        : { origin: 'a native tool', tools: [entry] },
    ),
  );
  const byName = new Map<string, { tool: ToolDef; origin: string }>();
  // Admission's canonical-order copies of each tool's schemas, made just now: the hash below
  // runs in the same synchronous stretch, so each copy holds what its schema holds.
  const forms: (SchemaForms | undefined)[] = [];
  for (const { origin, tools: list } of expanded) {
    for (const tool of list) {
      if (!isToolDef(tool)) throw new ConfigError('config.invalid_value', `${origin} produced something that is not a ToolDef`);
      assertToolName(tool.name, origin);
      const earlier = byName.get(tool.name);
      if (earlier !== undefined) {
        throw new ConfigError(
          'toolset.duplicate_name',
          `tool ${quoteName(tool.name)} comes from both ${earlier.origin} and ${origin}; ` +
            'give one of the sources a prefix, or deny the tool on one side',
        );
      }
      forms.push(admitToolFresh(tool, origin).forms);
      byName.set(tool.name, { tool, origin });
    }
  }
  const list = Object.freeze([...byName.values()].map(({ tool }) => tool));
  const [contract, authority] = await Promise.all([toolsetHashWithForms(list, forms), authorityHash(list)]);
  return Object.freeze({
    tools: list,
    toolsetHash: contract,
    authorityHash: authority,
    get: (name: string) => byName.get(name)?.tool,
  });
}

/**
 * Flattens registered names (which may name other registered toolsets) into ToolDefs and
 * sources, each once: the same source reached twice is one source, not a duplicate.
 */
function expandNames(tools: ToolsOption, registry: Readonly<Record<string, ToolsOption>>): Entry[] {
  const out: Entry[] = [];
  const seenEntries = new Set<Entry>();
  const pending: { item: ToolDef | ToolSource | string; via: readonly string[] }[] = [...tools]
    .reverse()
    .map((item) => ({ item, via: [] }));
  while (pending.length > 0) {
    const { item, via } = pending.pop() as (typeof pending)[number];
    if (typeof item === 'string') {
      if (!Object.hasOwn(registry, item)) {
        throw new ConfigError('toolset.unknown_name', `no toolset is registered as ${quoteName(item)}`);
      }
      if (via.includes(item)) {
        throw new ConfigError('config.invalid_value', `toolset ${quoteName(item)} includes itself (${[...via, item].join(' > ')})`);
      }
      const members = registry[item] ?? [];
      for (let i = members.length - 1; i >= 0; i -= 1) pending.push({ item: members[i] as Entry | string, via: [...via, item] });
      continue;
    }
    if (!isToolSource(item) && !isToolDef(item)) {
      throw new ConfigError('config.invalid_value', 'a tools entry must be a ToolDef, a ToolSource or a registered toolset name');
    }
    if (seenEntries.has(item)) continue;
    seenEntries.add(item);
    out.push(item);
  }
  return out;
}

/** A host's own ToolSource may fail any way it likes; what leaves here is typed. */
async function expandSource(source: ToolSource, session: ToolSourceSession | undefined): Promise<readonly ToolDef[]> {
  try {
    const tools = await source.tools(session);
    if (!Array.isArray(tools)) throw new TypeError('tools() did not return an array');
    return tools;
  } catch (error) {
    if (RulvarError.is(error)) throw error;
    throw new SourceError('source.unavailable', `source ${quoteName(source.id)} failed: ${describeCause(error)}`, { cause: error });
  }
}

function isToolSource(value: unknown): value is ToolSource {
  return typeof value === 'object' && value !== null && typeof (value as ToolSource).tools === 'function' && typeof (value as ToolSource).id === 'string';
}

function isToolDef(value: unknown): value is ToolDef {
  return typeof value === 'object' && value !== null && typeof (value as ToolDef).name === 'string' && typeof (value as ToolDef).execute === 'function';
}
