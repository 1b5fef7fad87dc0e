/**
 * The GET /mcp event streams. Each stream remembers the tool names its caller saw last; when
 * the registry (or a virtual tool source) changes, streams are re-checked in groups that share
 * a filter, and only those whose visible set really changed get
 * `notifications/tools/list_changed`. Bursts of changes are coalesced into one check.
 */
import type { Caller } from "../governance/types.js";
import type { ToolFilter } from "../registry/types.js";

export const CONNECTION_OPENED = JSON.stringify({
  jsonrpc: "2.0",
  method: "connection/opened",
  params: { server: "toolgate" },
});
const LIST_CHANGED = JSON.stringify({
  jsonrpc: "2.0",
  method: "notifications/tools/list_changed",
});

export interface StreamSink {
  write(chunk: string): void;
}

interface Stream {
  readonly sink: StreamSink;
  readonly caller: Caller;
  readonly filter: ToolFilter;
  readonly filterKey: string;
  seen: string;
}

export function sseMessage(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

export class SseHub {
  private readonly streams = new Set<Stream>();
  private pending = false;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly visibleNames: (ctx: {
      caller: Caller;
      filter: ToolFilter;
    }) => string,
    private readonly keepAliveMs: number,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /** Registers a stream; returns the function that removes it (call it on close). */
  add(
    sink: StreamSink,
    caller: Caller,
    filter: ToolFilter,
    filterKey: string,
  ): () => void {
    const stream: Stream = {
      sink,
      caller,
      filter,
      filterKey,
      seen: this.visibleNames({ caller, filter }),
    };
    this.streams.add(stream);
    sink.write(sseMessage(CONNECTION_OPENED));
    this.keepAlive ??= setInterval(() => this.ping(), this.keepAliveMs).unref();
    return () => {
      this.streams.delete(stream);
      if (this.streams.size === 0 && this.keepAlive) {
        clearInterval(this.keepAlive);
        this.keepAlive = undefined;
      }
    };
  }

  /** Schedules one re-check of every stream (coalescing a burst of changes). */
  changed(): void {
    if (this.pending || this.streams.size === 0) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.recheck();
    });
  }

  private recheck(): void {
    const byFilter = new Map<string, string>();
    for (const s of this.streams) {
      let names = byFilter.get(s.filterKey);
      if (names === undefined) {
        names = this.visibleNames(s);
        byFilter.set(s.filterKey, names);
      }
      if (names !== s.seen) {
        s.seen = names;
        s.sink.write(sseMessage(LIST_CHANGED));
      }
    }
  }

  private ping(): void {
    for (const s of this.streams) s.sink.write(": keep-alive\n\n");
  }

  close(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    this.streams.clear();
  }
}
