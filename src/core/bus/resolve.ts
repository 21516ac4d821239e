/**
 * `resolveToolset`: the one place a toolset is put together, for native tools and every
 * source alike. Registered names are expanded first (an unknown name refuses before any
 * source is contacted), sources are expanded concurrently, every tool is admitted and
 * checked (final name, duplicates across the whole toolset), and the result is frozen with
 * its identity hashes. A later list_changed on a source never reaches a resolved toolset.
 *
 * The toolset holds sealed ToolDefs only (contract-memo.ts): `tool()`'s as they are, any
 * other as the frozen copy made of it the first time it was resolved. So resolving tools
 * resolved before (a spawn over a cached list) admits nothing and writes no canonical JSON:
 * it looks each tool's entry up and digests the texts it already has.
 */
import { ConfigError, RulvarError, SourceError, describeCause } from '../errors.js';
import { quoteName } from '../tools/names.js';
import { sealTool, type SealedTool } from './contract-memo.js';
import { sealedToolsetHashes } from './toolset-hash.js';
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
  const byName = new Map<string, { entry: SealedTool; origin: string }>();
  for (const { origin, tools: list } of expanded) {
    for (const tool of list) {
      if (!isToolDef(tool)) throw new ConfigError('config.invalid_value', `${origin} produced something that is not a ToolDef`);
      const entry = sealTool(tool, origin);
      const { name } = entry.tool;
      const earlier = byName.get(name);
      if (earlier !== undefined) {
        throw new ConfigError(
          'toolset.duplicate_name',
          `tool ${quoteName(name)} comes from both ${earlier.origin} and ${origin}; ` +
            'give one of the sources a prefix, or deny the tool on one side',
        );
      }
      byName.set(name, { entry, origin });
    }
  }
  const sealed = [...byName.values()].map(({ entry }) => entry);
  const list = Object.freeze(sealed.map(({ tool }) => tool));
  const hashes = await sealedToolsetHashes(sealed);
  return Object.freeze({
    tools: list,
    toolsetHash: hashes.toolsetHash,
    authorityHash: hashes.authorityHash,
    get: (name: string) => byName.get(name)?.entry.tool,
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
