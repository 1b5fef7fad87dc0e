/**
 * The aggregated tool catalogue. The upstream layer tells it, per client, which upstream
 * tools exist (an empty list while the client is not connected) and the client's settings;
 * the registry derives the offered entries (`tools_to_execute`), names them
 * `<client>_<tool>`, and emits a change event with what was added, removed or changed.
 *
 * Reads are cheap: the sorted list of every offered entry and a name index are rebuilt once
 * per version and shared by every reader (frozen arrays, entries shared, schemas never
 * copied); a filtered `list` allocates only its result array.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

import { isVisible } from "./filter.js";
import { aggregateName, clientWildcard, toolSelector } from "./naming.js";
import type {
  CallOptions,
  RegistryChange,
  ToolEntry,
  ToolFilter,
  ToolRegistry,
} from "./types.js";

/** What the upstream layer reports for one client. */
export interface ClientTools {
  readonly id: string;
  readonly name: string;
  readonly codeMode: boolean;
  readonly toolsToExecute: readonly string[];
  readonly toolsToAutoExecute: readonly string[];
  /** The server's (valid) tools; empty while the client is not connected. */
  readonly tools: readonly Tool[];
}

export type ToolInvoker = (
  entry: ToolEntry,
  args: Record<string, unknown>,
  options: CallOptions,
) => Promise<CallToolResult>;

interface Entry extends ToolEntry {
  readonly wildcard: string;
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (
    a.autoExecute !== b.autoExecute ||
    a.codeMode !== b.codeMode ||
    a.clientId !== b.clientId
  )
    return false;
  return (
    a.definition === b.definition ||
    JSON.stringify(a.definition) === JSON.stringify(b.definition)
  );
}

function buildEntries(info: ClientTools): Entry[] {
  const exec = toolSelector(info.toolsToExecute);
  const auto = toolSelector(info.toolsToAutoExecute);
  const out: Entry[] = [];
  for (const def of info.tools) {
    if (!exec(def.name)) continue;
    out.push(
      Object.freeze({
        name: aggregateName(info.name, def.name),
        client: info.name,
        clientId: info.id,
        tool: def.name,
        definition: def,
        autoExecute: auto(def.name),
        codeMode: info.codeMode,
        wildcard: clientWildcard(info.name),
      }),
    );
  }
  out.sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  return out;
}

const EMPTY: readonly ToolEntry[] = Object.freeze([]);

export class AggregatedToolRegistry implements ToolRegistry {
  #version = 0;
  readonly #clients = new Map<string, Entry[]>();
  readonly #listeners = new Set<(change: RegistryChange) => void>();
  readonly #invoke: ToolInvoker;
  // Per-version caches, rebuilt lazily on the first read after a change.
  #builtFor = -1;
  #all: readonly ToolEntry[] = EMPTY;
  #direct: readonly ToolEntry[] = EMPTY;
  #byName = new Map<string, ToolEntry>();
  #clientNames: ReadonlySet<string> = new Set();

  constructor(invoke: ToolInvoker) {
    this.#invoke = invoke;
  }

  get version(): number {
    return this.#version;
  }

  /** Replaces a client's entries; emits a change event and bumps the version when anything differs. */
  setClient(info: ClientTools): void {
    const next = buildEntries(info);
    const prev = this.#clients.get(info.name) ?? [];
    const before = new Map(prev.map((e) => [e.name, e]));
    const added: string[] = [];
    const changed: string[] = [];
    for (const e of next) {
      const old = before.get(e.name);
      if (!old) added.push(e.name);
      else if (!sameEntry(old, e)) changed.push(e.name);
      before.delete(e.name);
    }
    const removed = [...before.keys()];
    const known = this.#clients.has(info.name);
    this.#clients.set(info.name, next);
    if (added.length + removed.length + changed.length === 0) {
      if (!known) this.#bump();
      return;
    }
    // Keep identical entries as the same objects, so readers' identity checks stay valid.
    if (changed.length + added.length < next.length) {
      const old = new Map(prev.map((e) => [e.name, e]));
      this.#clients.set(
        info.name,
        next.map((e) => {
          const o = old.get(e.name);
          return o && sameEntry(o, e) ? o : e;
        }),
      );
    }
    this.#bump();
    this.#emit({
      kind: "client-tools",
      client: info.name,
      added,
      removed,
      changed,
    });
  }

  removeClient(name: string): void {
    if (!this.#clients.delete(name)) return;
    this.#bump();
    this.#emit({ kind: "client-removed", client: name });
  }

  /** Names of the clients the registry knows (connected or not); for `parseToolHeaders`. Cached per version. */
  clientNames(): ReadonlySet<string> {
    this.#build();
    return this.#clientNames;
  }

  list(filter?: ToolFilter): readonly ToolEntry[] {
    this.#build();
    if (filter === undefined) return this.#direct;
    const out: ToolEntry[] = [];
    for (const e of this.#all) if (isVisible(e, filter)) out.push(e);
    return out;
  }

  resolve(name: string): ToolEntry | undefined {
    this.#build();
    return this.#byName.get(name);
  }

  isVisible(entry: ToolEntry, filter: ToolFilter | undefined): boolean {
    return isVisible(entry, filter);
  }

  call(
    entry: ToolEntry,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    return this.#invoke(entry, args, options);
  }

  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #bump(): void {
    this.#version++;
  }

  #build(): void {
    if (this.#builtFor === this.#version) return;
    const names = [...this.#clients.keys()].sort();
    const all: ToolEntry[] = [];
    const byName = new Map<string, ToolEntry>();
    for (const n of names) {
      for (const e of this.#clients.get(n) ?? []) {
        // `a` + `b_c` and `a_b` + `c` both make `a_b_c`; the first client in name order keeps it.
        if (byName.has(e.name)) continue;
        byName.set(e.name, e);
        all.push(e);
      }
    }
    this.#all = Object.freeze(all);
    this.#direct = Object.freeze(all.filter((e) => !e.codeMode));
    this.#byName = byName;
    this.#clientNames = new Set(names);
    this.#builtFor = this.#version;
  }

  #emit(change: RegistryChange): void {
    for (const l of this.#listeners) l(change);
  }
}
