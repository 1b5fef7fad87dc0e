/**
 * A Kubernetes API server double: an HTTP server on 127.0.0.1 that keeps the semantics the
 * operator relies on, driven through the real `@kubernetes/client-node`.
 *
 * - One global `resourceVersion` counter (as etcd's revision); every write bumps it.
 * - List returns the collection's current version; watch replays the events after the given
 *   version, then streams live ones as JSON lines; `BOOKMARK`s on demand (`bookmark()`).
 * - `compact()` forgets the event history: a watch from an older version gets an `ERROR`
 *   event with a 410 Status (as the real server does), or a plain HTTP 410 when
 *   `goneAsHttp` is set.
 * - Updates with a stale `metadata.resourceVersion` get 409 Conflict; create of an existing
 *   name gets 409 AlreadyExists; a missing object 404.
 * - Custom resources have a `status` subresource: PUT on the object ignores `status`, PUT on
 *   `/status` changes only `status`; `metadata.generation` moves only when `spec` changes.
 * - Every request is logged with its bearer token, so tests count writes per client.
 */
import { randomUUID } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

import { KubeConfig } from "@kubernetes/client-node";

type Obj = Record<string, unknown> & {
  metadata: Record<string, unknown> & {
    name: string;
    namespace?: string;
    resourceVersion?: string;
  };
};

interface Event {
  rv: number;
  collection: string;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: Obj;
}

interface Watcher {
  collection: string;
  res: ServerResponse;
  bookmarks: boolean;
}

export interface LoggedRequest {
  method: string;
  path: string;
  user: string;
  status: number;
  watch: boolean;
}

interface Route {
  collection: string;
  kind: string;
  apiVersion: string;
  name?: string;
  sub?: string;
  namespace: string;
}

const KINDS: Record<
  string,
  {
    kind: string;
    custom: boolean;
    groupVersion: string;
    namespaced: boolean;
    shortNames?: string[];
  }
> = {
  configmaps: {
    kind: "ConfigMap",
    custom: false,
    groupVersion: "v1",
    namespaced: true,
  },
  secrets: {
    kind: "Secret",
    custom: false,
    groupVersion: "v1",
    namespaced: true,
  },
  namespaces: {
    kind: "Namespace",
    custom: false,
    groupVersion: "v1",
    namespaced: false,
  },
  leases: {
    kind: "Lease",
    custom: false,
    groupVersion: "coordination.k8s.io/v1",
    namespaced: true,
  },
  customresourcedefinitions: {
    kind: "CustomResourceDefinition",
    custom: false,
    groupVersion: "apiextensions.k8s.io/v1",
    namespaced: false,
  },
  mcpclients: {
    kind: "MCPClient",
    custom: true,
    groupVersion: "toolgate.dev/v1alpha1",
    namespaced: true,
    shortNames: ["mcpc"],
  },
  virtualkeys: {
    kind: "VirtualKey",
    custom: true,
    groupVersion: "toolgate.dev/v1alpha1",
    namespaced: true,
    shortNames: ["vk"],
  },
};

/** Discovery documents (the legacy, non-aggregated form), enough for kubectl's REST mapper. */
function discovery(path: string): object | undefined {
  const resources = (gv: string) => ({
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: gv,
    resources: Object.entries(KINDS)
      .filter(([, k]) => k.groupVersion === gv)
      .flatMap(([plural, k]) => [
        {
          name: plural,
          singularName: k.kind.toLowerCase(),
          namespaced: k.namespaced,
          kind: k.kind,
          verbs: [
            "create",
            "delete",
            "get",
            "list",
            "patch",
            "update",
            "watch",
          ],
          ...(k.shortNames ? { shortNames: k.shortNames } : {}),
        },
        ...(k.custom
          ? [
              {
                name: `${plural}/status`,
                singularName: "",
                namespaced: true,
                kind: k.kind,
                verbs: ["get", "patch", "update"],
              },
            ]
          : []),
      ]),
  });
  if (path === "/version")
    return {
      major: "1",
      minor: "35",
      gitVersion: "v1.35.0-double",
      platform: "linux/amd64",
    };
  if (path === "/api")
    return {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [],
    };
  if (path === "/api/v1") return resources("v1");
  const groups = [
    ...new Set(Object.values(KINDS).map((k) => k.groupVersion)),
  ].filter((gv) => gv.includes("/"));
  if (path === "/apis") {
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map((gv) => {
        const [name = "", version = ""] = gv.split("/");
        return {
          name,
          versions: [{ groupVersion: gv, version }],
          preferredVersion: { groupVersion: gv, version },
        };
      }),
    };
  }
  const gv = /^\/apis\/([^/]+\/[^/]+)$/.exec(path)?.[1];
  return gv && groups.includes(gv) ? resources(gv) : undefined;
}

/** RFC 7386 JSON merge patch (also used for kubectl's strategic merge patches, which are the same for maps). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch))
    return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$")) continue;
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function parseRoute(path: string): Route | undefined {
  const core =
    /^\/api\/v1\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/(status))?$/.exec(
      path,
    );
  const group =
    /^\/apis\/([^/]+)\/([^/]+)\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/(status))?$/.exec(
      path,
    );
  const clusterScoped =
    /^\/(?:api\/v1|apis\/([^/]+)\/([^/]+))\/(namespaces|customresourcedefinitions)(?:\/([^/]+))?$/.exec(
      path,
    );
  if (clusterScoped && !core) {
    const [, g, v, plural = "", name] = clusterScoped;
    const apiVersion = g ? `${g}/${v ?? ""}` : "v1";
    return {
      namespace: "",
      collection: `${apiVersion}//${plural}`,
      kind: KINDS[plural]?.kind ?? "",
      apiVersion,
      ...(name ? { name } : {}),
    };
  }
  if (core) {
    const [, namespace = "", plural = "", name, sub] = core;
    return {
      namespace,
      collection: `v1/${namespace}/${plural}`,
      kind: KINDS[plural]?.kind ?? "",
      apiVersion: "v1",
      ...(name ? { name } : {}),
      ...(sub ? { sub } : {}),
    };
  }
  if (group) {
    const [, g = "", v = "", namespace = "", plural = "", name, sub] = group;
    return {
      namespace,
      collection: `${g}/${v}/${namespace}/${plural}`,
      kind: KINDS[plural]?.kind ?? "",
      apiVersion: `${g}/${v}`,
      ...(name ? { name } : {}),
      ...(sub ? { sub } : {}),
    };
  }
  return undefined;
}

function statusBody(code: number, reason: string, message: string): object {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: code < 400 ? "Success" : "Failure",
    reason,
    message,
    code,
  };
}

const clone = <T>(v: T): T => structuredClone(v);

export class ApiServerDouble {
  private server: Server | undefined;
  private rv = 1;
  private compactedBefore = 0;
  private readonly store = new Map<string, Map<string, Obj>>();
  private events: Event[] = [];
  private readonly watchers = new Set<Watcher>();
  readonly requests: LoggedRequest[] = [];
  /** Full request URLs (path and query), in order. */
  readonly requestUrls: string[] = [];
  /** The next write whose path includes one of these strings fails with 409 Conflict (then the entry is used up). */
  readonly conflictOnce: string[] = [];
  /** Requests from these users (bearer tokens) get 503, as if cut off by a network partition. */
  readonly blockedUsers = new Set<string>();
  /** Time source for creationTimestamp (kept, as Kubernetes does, to whole seconds). */
  clock: () => Date = () => new Date();
  /** Admission for custom resources: error messages reject a create or update with 422 Invalid. */
  admission: ((obj: Record<string, unknown>) => string[]) | undefined;
  /** Answer a watch from a compacted version with HTTP 410 instead of a 410 ERROR event. */
  goneAsHttp = false;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve) =>
      this.server?.listen(0, "127.0.0.1", resolve),
    );
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.dropWatches();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A KubeConfig pointing at the double, authenticating as `user` (a bearer token). */
  kubeConfig(user = "operator"): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "double", server: this.url, skipTLSVerify: true }],
      users: [{ name: user, token: user }],
      contexts: [
        { name: "double", cluster: "double", user, namespace: "default" },
      ],
      currentContext: "double",
    });
    return kc;
  }

  /** Writes (POST/PUT/PATCH/DELETE) seen so far, optionally only those matching. */
  writes(
    filter: { user?: string; pathIncludes?: string } = {},
  ): LoggedRequest[] {
    return this.requests.filter(
      (r) =>
        r.method !== "GET" &&
        (filter.user === undefined || r.user === filter.user) &&
        (filter.pathIncludes === undefined ||
          r.path.includes(filter.pathIncludes)),
    );
  }

  /** Forgets the event history: watches from any version seen so far get 410 Gone. */
  compact(): void {
    this.compactedBefore = this.rv;
    this.events = [];
  }

  /** Cuts every open watch stream mid-way (as a dropped connection would). */
  dropWatches(): void {
    for (const w of this.watchers) w.res.destroy();
    this.watchers.clear();
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  /** Sends a BOOKMARK with the current version to every watcher that asked for them. */
  bookmark(): void {
    for (const w of this.watchers) {
      if (!w.bookmarks) continue;
      w.res.write(
        `${JSON.stringify({ type: "BOOKMARK", object: { kind: "Bookmark", metadata: { resourceVersion: String(this.rv) } } })}\n`,
      );
    }
  }

  get resourceVersion(): number {
    return this.rv;
  }

  // --- direct access for tests (acts as another API client: bumps versions, emits events) ---

  get(path: string): Obj | undefined {
    const r = parseRoute(path);
    if (!r?.name) throw new Error(`not an object path: ${path}`);
    const o = this.store.get(r.collection)?.get(r.name);
    return o ? clone(o) : undefined;
  }

  list(path: string): Obj[] {
    const r = parseRoute(path);
    if (!r) throw new Error(`not a collection path: ${path}`);
    return [...(this.store.get(r.collection)?.values() ?? [])].map((o) =>
      clone(o),
    );
  }

  /** Creates or replaces (spec/data, not status) an object at its collection path. */
  apply(collectionPath: string, body: Record<string, unknown>): Obj {
    const r = parseRoute(collectionPath);
    if (!r) throw new Error(`not a collection path: ${collectionPath}`);
    const name = (body.metadata as { name: string }).name;
    const existing = this.store.get(r.collection)?.get(name);
    const obj = clone(body) as Obj;
    if (existing) {
      delete obj.metadata.resourceVersion;
      return this.update({ ...r, name }, obj, false).body as Obj;
    }
    return this.create(r, obj).body as Obj;
  }

  remove(path: string): void {
    const r = parseRoute(path);
    if (!r?.name) throw new Error(`not an object path: ${path}`);
    this.delete({ ...r, name: r.name });
  }

  // --- HTTP ---

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const user = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const watch =
      url.searchParams.get("watch") === "true" ||
      url.searchParams.get("watch") === "1";
    const log: LoggedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      user,
      status: 200,
      watch,
    };
    this.requests.push(log);
    this.requestUrls.push(req.url ?? "/");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const route = parseRoute(url.pathname);
    const disc = req.method === "GET" ? discovery(url.pathname) : undefined;
    const send = (code: number, body: unknown) => {
      log.status = code;
      res
        .writeHead(code, { "content-type": "application/json" })
        .end(JSON.stringify(body));
    };
    if (this.blockedUsers.has(user))
      return send(503, statusBody(503, "ServiceUnavailable", "partitioned"));
    if (disc) return send(200, disc);
    const conflict =
      req.method !== "GET"
        ? this.conflictOnce.findIndex((p) => url.pathname.includes(p))
        : -1;
    if (conflict >= 0) {
      this.conflictOnce.splice(conflict, 1);
      return send(
        409,
        statusBody(
          409,
          "Conflict",
          "the object has been modified; please apply your changes to the latest version and try again",
        ),
      );
    }
    if (!route?.kind)
      return send(
        404,
        statusBody(404, "NotFound", `no route for ${url.pathname}`),
      );
    let body: Obj | undefined;
    try {
      body = raw ? (JSON.parse(raw) as Obj) : undefined;
    } catch {
      return send(400, statusBody(400, "BadRequest", "body is not JSON"));
    }
    const out = this.dispatch(req.method ?? "GET", route, url, body, res, log);
    if (out) send(out.code, out.body);
  }

  private dispatch(
    method: string,
    r: Route,
    url: URL,
    body: Obj | undefined,
    res: ServerResponse,
    log: LoggedRequest,
  ): { code: number; body: unknown } | undefined {
    if (method === "GET" && !r.name && log.watch) {
      this.watch(r, url, res);
      return undefined;
    }
    if (method === "GET" && !r.name) return this.listResponse(r);
    if (method === "GET" && r.name) {
      const o = this.store.get(r.collection)?.get(r.name);
      return o
        ? { code: 200, body: o }
        : {
            code: 404,
            body: statusBody(
              404,
              "NotFound",
              `${r.kind} "${r.name}" not found`,
            ),
          };
    }
    if (!body && method !== "DELETE")
      return { code: 400, body: statusBody(400, "BadRequest", "missing body") };
    if (method === "POST" && !r.name && body) return this.create(r, body);
    if (method === "PUT" && r.name && body)
      return this.update({ ...r, name: r.name }, body, r.sub === "status");
    if (method === "DELETE" && r.name)
      return this.delete({ ...r, name: r.name });
    if (method === "PATCH" && r.name && body)
      return this.patch({ ...r, name: r.name }, body, r.sub === "status");
    return {
      code: 405,
      body: statusBody(405, "MethodNotAllowed", `${method} ${url.pathname}`),
    };
  }

  private listResponse(r: Route): { code: number; body: unknown } {
    const items = [...(this.store.get(r.collection)?.values() ?? [])].sort(
      (a, b) => (a.metadata.name < b.metadata.name ? -1 : 1),
    );
    return {
      code: 200,
      body: {
        apiVersion: r.apiVersion,
        kind: `${r.kind}List`,
        metadata: { resourceVersion: String(this.rv) },
        items,
      },
    };
  }

  private watch(r: Route, url: URL, res: ServerResponse): void {
    const from = Number(url.searchParams.get("resourceVersion") ?? "0");
    const expired = from > 0 && from < this.compactedBefore;
    if (expired && this.goneAsHttp) {
      res
        .writeHead(410, { "content-type": "application/json" })
        .end(
          JSON.stringify(
            statusBody(410, "Expired", "too old resource version"),
          ),
        );
      return;
    }
    res.writeHead(200, {
      "content-type": "application/json",
      "transfer-encoding": "chunked",
    });
    if (expired) {
      res.end(
        `${JSON.stringify({ type: "ERROR", object: statusBody(410, "Expired", `too old resource version: ${from} (${this.compactedBefore})`) })}\n`,
      );
      return;
    }
    const w: Watcher = {
      collection: r.collection,
      res,
      bookmarks: url.searchParams.get("allowWatchBookmarks") === "true",
    };
    this.watchers.add(w);
    res.on("close", () => this.watchers.delete(w));
    for (const e of this.events)
      if (e.collection === r.collection && e.rv > from)
        res.write(`${JSON.stringify({ type: e.type, object: e.object })}\n`);
    const timeout = Number(url.searchParams.get("timeoutSeconds") ?? "0");
    if (timeout > 0) setTimeout(() => res.end(), timeout * 1000).unref();
  }

  private emit(collection: string, type: Event["type"], object: Obj): void {
    const e: Event = { rv: this.rv, collection, type, object: clone(object) };
    this.events.push(e);
    for (const w of this.watchers)
      if (w.collection === collection)
        w.res.write(`${JSON.stringify({ type, object: e.object })}\n`);
  }

  private normalise(r: Route, body: Obj): Obj {
    const o = clone(body);
    o.apiVersion = r.apiVersion;
    o.kind = r.kind;
    if (r.kind === "Secret" && o.stringData) {
      const data = { ...(o.data as Record<string, string> | undefined) };
      for (const [k, v] of Object.entries(
        o.stringData as Record<string, string>,
      ))
        data[k] = Buffer.from(v).toString("base64");
      o.data = data;
      delete o.stringData;
    }
    return o;
  }

  private admit(r: Route, o: Obj): { code: number; body: unknown } | undefined {
    const errors: string[] = [];
    if (
      !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(
        o.metadata.name,
      ) ||
      o.metadata.name.length > 253
    ) {
      errors.push(
        "metadata.name: Invalid value: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
      );
    }
    if (KINDS[r.collection.split("/").at(-1) ?? ""]?.custom && this.admission)
      errors.push(...this.admission(o));
    if (errors.length === 0) return undefined;
    return {
      code: 422,
      body: statusBody(
        422,
        "Invalid",
        `${r.kind} "${o.metadata.name}" is invalid: ${errors.join(", ")}`,
      ),
    };
  }

  private create(r: Route, body: Obj): { code: number; body: unknown } {
    const name = body.metadata.name;
    const coll = this.store.get(r.collection) ?? new Map<string, Obj>();
    this.store.set(r.collection, coll);
    if (coll.has(name))
      return {
        code: 409,
        body: statusBody(
          409,
          "AlreadyExists",
          `${r.kind} "${name}" already exists`,
        ),
      };
    const o = this.normalise(r, body);
    const rejected = this.admit(r, o);
    if (rejected) return rejected;
    this.rv++;
    o.metadata = {
      ...o.metadata,
      namespace: r.namespace,
      uid: randomUUID(),
      resourceVersion: String(this.rv),
      creationTimestamp: this.clock()
        .toISOString()
        .replace(/\.\d+Z$/, "Z"),
    };
    if (KINDS[r.collection.split("/").at(-1) ?? ""]?.custom) {
      o.metadata.generation = 1;
      delete o.status;
    }
    coll.set(name, o);
    this.emit(r.collection, "ADDED", o);
    return { code: 201, body: o };
  }

  private update(
    r: Route & { name: string },
    body: Obj,
    statusOnly: boolean,
  ): { code: number; body: unknown } {
    const existing = this.store.get(r.collection)?.get(r.name);
    if (!existing)
      return {
        code: 404,
        body: statusBody(404, "NotFound", `${r.kind} "${r.name}" not found`),
      };
    const given = body.metadata.resourceVersion;
    if (given !== undefined && given !== existing.metadata.resourceVersion) {
      return {
        code: 409,
        body: statusBody(
          409,
          "Conflict",
          `Operation cannot be fulfilled on ${r.kind} "${r.name}": the object has been modified; please apply your changes to the latest version and try again`,
        ),
      };
    }
    const custom = KINDS[r.collection.split("/").at(-1) ?? ""]?.custom ?? false;
    let o: Obj;
    if (statusOnly) {
      o = { ...clone(existing), status: clone(body.status) };
    } else {
      o = this.normalise(r, body);
      o.metadata = {
        ...o.metadata,
        namespace: r.namespace,
        uid: existing.metadata.uid,
        creationTimestamp: existing.metadata.creationTimestamp,
      };
      if (custom) {
        o.status = clone(existing.status);
        const specChanged =
          JSON.stringify(existing.spec) !== JSON.stringify(o.spec);
        o.metadata.generation =
          Number(existing.metadata.generation ?? 1) + (specChanged ? 1 : 0);
      }
      const rejected = this.admit(r, o);
      if (rejected) return rejected;
    }
    this.rv++;
    o.metadata.resourceVersion = String(this.rv);
    this.store.get(r.collection)?.set(r.name, o);
    this.emit(r.collection, "MODIFIED", o);
    return { code: 200, body: o };
  }

  private patch(
    r: Route & { name: string },
    patch: Obj,
    statusOnly: boolean,
  ): { code: number; body: unknown } {
    const existing = this.store.get(r.collection)?.get(r.name);
    if (!existing)
      return {
        code: 404,
        body: statusBody(404, "NotFound", `${r.kind} "${r.name}" not found`),
      };
    const merged = mergePatch(clone(existing), patch) as Obj;
    // A patch without a resourceVersion applies to whatever is current (no conflict check).
    if (patch.metadata?.resourceVersion === undefined)
      delete merged.metadata.resourceVersion;
    return this.update(r, merged, statusOnly);
  }

  private delete(r: Route & { name: string }): { code: number; body: unknown } {
    const existing = this.store.get(r.collection)?.get(r.name);
    if (!existing)
      return {
        code: 404,
        body: statusBody(404, "NotFound", `${r.kind} "${r.name}" not found`),
      };
    this.store.get(r.collection)?.delete(r.name);
    this.rv++;
    existing.metadata.resourceVersion = String(this.rv);
    this.emit(r.collection, "DELETED", existing);
    return { code: 200, body: statusBody(200, "", "deleted") };
  }
}
