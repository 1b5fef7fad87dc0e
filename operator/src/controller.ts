/**
 * The controller: informers for MCPClients, VirtualKeys and Secrets in each watched
 * namespace feed one work queue; workers reconcile three kinds of keys:
 *
 * - `Config/<ns>/<configmap>`: render everything into the release's ConfigMap and Secret.
 * - `MCPClient/<ns>/<name>`: write the resource's status (verdict + gateway reports).
 * - `VirtualKey/<ns>/<name>`: create the key Secret when missing, write status.
 *
 * Every reconcile reads the informer caches and renders afresh (a pure, cheap function), so
 * keys never depend on the order they run in, and a reconcile on unchanged input writes
 * nothing: children and status are compared before any write. Conflicts (409) requeue with
 * backoff; the informer soon delivers the newer object.
 */
import { randomBytes } from "node:crypto";

import type { KubeConfig, V1Secret } from "@kubernetes/client-node";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { GatewayConfigInput } from "@toolgate/gateway";

import {
  API_VERSION,
  type CustomObject,
  GROUP,
  KINDS,
  MCPClientStatus,
  VERSION,
  VirtualKeySpec,
  VirtualKeyStatus,
} from "./crds/resources.js";
import { type EventType, Informer, type KubeObject } from "./kube/informer.js";
import { WorkQueue } from "./kube/work-queue.js";
import type { Logger } from "./logger.js";
import type { OperatorMetrics } from "./metrics.js";
import {
  converged,
  decodeSecret,
  desiredConfigMap,
  desiredSecret,
  MANAGED_BY,
  type Target,
} from "./render/children.js";
import {
  DEFAULT_SECRET_KEY,
  objectKey,
  render,
  type Rendered,
} from "./render/desired.js";
import { jsonEqual } from "./status/conditions.js";
import {
  mcpClientStatus,
  type StatusContext,
  virtualKeyStatus,
} from "./status/resource-status.js";
import type { ClientRuntime, StatusSource } from "./status/status-source.js";

export interface ControllerOptions {
  namespaces: string[];
  target: Target;
  base?: GatewayConfigInput;
  statusSource: StatusSource;
  /** How often client status is refreshed from the state store. */
  statusIntervalMs?: number;
  /** How often everything is reconciled regardless of events (repairs drift). */
  resyncIntervalMs?: number;
  staleAfterMs?: number;
  workers?: number;
  now?: () => Date;
  random?: () => number;
  logger: Logger;
  metrics: OperatorMetrics;
}

type Kind = "MCPClient" | "VirtualKey";

function httpCode(err: unknown): number | undefined {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === "number" ? c : undefined;
}

function specOf(o: CustomObject): Record<string, unknown> {
  return typeof o.spec === "object" && o.spec !== null
    ? (o.spec as Record<string, unknown>)
    : {};
}

type MaybeRef = { name?: unknown } | undefined;

function refName(ref: MaybeRef): string[] {
  return typeof ref?.name === "string" ? [ref.name] : [];
}

/** Secret names an object's spec refers to (without validating the spec). */
export function referencedSecrets(kind: Kind, o: CustomObject): string[] {
  const spec = specOf(o);
  if (kind === "VirtualKey") return refName(spec.keySecretRef as MaybeRef);
  const headers = Object.values(
    (spec.headers ?? {}) as Record<string, { secretKeyRef?: MaybeRef }>,
  ).flatMap((h) => refName(h.secretKeyRef));
  return [
    ...headers,
    ...refName(
      (spec.oauthConfig as { clientSecretRef?: MaybeRef } | undefined)
        ?.clientSecretRef,
    ),
  ];
}

/** True when `desired` has a value that `current` does not hold yet. */
function lacksValues(current: V1Secret, desired: V1Secret): boolean {
  return Object.entries(desired.data ?? {}).some(
    ([k, v]) => current.data?.[k] !== v,
  );
}

export class Controller {
  readonly queue: WorkQueue;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly clients = new Map<string, Informer<CustomObject>>();
  private readonly keys = new Map<string, Informer<CustomObject>>();
  private readonly secrets = new Map<string, Informer<V1Secret>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly configKey: string;
  private isStopped = false;
  private signalStopped!: () => void;
  private readonly stopped = new Promise<void>(
    (resolve) => (this.signalStopped = resolve),
  );

  constructor(
    kc: KubeConfig,
    private readonly opts: ControllerOptions,
  ) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
    this.configKey = `Config/${opts.target.namespace}/${opts.target.configMap}`;
    this.queue = new WorkQueue({
      ...(opts.random ? { random: opts.random } : {}),
      onError: (key, error) =>
        opts.logger.warn(
          { key, err: String(error) },
          "reconcile failed; retrying with backoff",
        ),
    });
    for (const ns of opts.namespaces) {
      this.clients.set(ns, this.customInformer(kc, ns, "MCPClient"));
      this.keys.set(ns, this.customInformer(kc, ns, "VirtualKey"));
      this.secrets.set(ns, this.secretInformer(kc, ns));
    }
  }

  private all(): Pick<
    Informer<KubeObject>,
    "start" | "stop" | "synced" | "hasSynced"
  >[] {
    return [
      ...this.clients.values(),
      ...this.keys.values(),
      ...this.secrets.values(),
    ];
  }

  get synced(): boolean {
    return this.all().every((i) => i.hasSynced);
  }

  /** Starts the informers; workers start once every cache has synced (or never, if stopped first). */
  async start(): Promise<void> {
    for (const i of this.all()) i.start();
    await Promise.race([
      Promise.all(this.all().map((i) => i.synced)),
      this.stopped,
    ]);
    if (this.isStopped) return;
    this.queue.run((key) => this.reconcile(key), this.opts.workers ?? 2);
    this.queue.add(this.configKey);
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.opts.statusIntervalMs ?? 10_000, () =>
      this.enqueueAll("MCPClient"),
    );
    every(this.opts.resyncIntervalMs ?? 300_000, () => {
      this.queue.add(this.configKey);
      this.enqueueAll("MCPClient");
      this.enqueueAll("VirtualKey");
    });
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    this.signalStopped();
    for (const t of this.timers.splice(0)) clearInterval(t);
    for (const i of this.all()) i.stop();
    await this.queue.stop();
  }

  /** Resolves when the queue has nothing to do. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private enqueueAll(kind: Kind): void {
    const informers = kind === "MCPClient" ? this.clients : this.keys;
    for (const inf of informers.values())
      for (const o of inf.items()) this.queue.add(`${kind}/${objectKey(o)}`);
  }

  private customInformer(
    kc: KubeConfig,
    namespace: string,
    kind: Kind,
  ): Informer<CustomObject> {
    const { plural } = KINDS[kind];
    return new Informer<CustomObject>(kc, {
      resource: plural,
      path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}`,
      list: async () => {
        const res = (await this.custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural,
        })) as { items: CustomObject[]; metadata: { resourceVersion: string } };
        return {
          items: res.items,
          resourceVersion: res.metadata.resourceVersion,
        };
      },
      onEvent: (type, obj, old) => this.onCustomEvent(kind, type, obj, old),
      onRestart: (reason) =>
        this.opts.metrics.watchRestarts.inc({ resource: plural, reason }),
      ...(this.opts.random ? { random: this.opts.random } : {}),
    });
  }

  private secretInformer(
    kc: KubeConfig,
    namespace: string,
  ): Informer<V1Secret> {
    return new Informer<V1Secret>(kc, {
      resource: "secrets",
      path: `/api/v1/namespaces/${namespace}/secrets`,
      list: async () => {
        const res = await this.core.listNamespacedSecret({ namespace });
        return {
          items: res.items,
          resourceVersion: res.metadata?.resourceVersion ?? "",
        };
      },
      onEvent: (_type, obj) => this.onSecretEvent(namespace, obj),
      onRestart: (reason) =>
        this.opts.metrics.watchRestarts.inc({ resource: "secrets", reason }),
      ...(this.opts.random ? { random: this.opts.random } : {}),
    });
  }

  private onCustomEvent(
    kind: Kind,
    type: EventType,
    obj: CustomObject,
    old?: CustomObject,
  ): void {
    // Our own status writes come back as updates with an unchanged generation: nothing to do.
    if (
      type === "update" &&
      old &&
      old.metadata.generation === obj.metadata.generation &&
      jsonEqual(old.spec, obj.spec)
    )
      return;
    this.queue.add(this.configKey);
    if (type !== "delete") this.queue.add(`${kind}/${objectKey(obj)}`);
  }

  private onSecretEvent(namespace: string, secret: V1Secret): void {
    const name = secret.metadata?.name ?? "";
    if (
      namespace === this.opts.target.namespace &&
      name === this.opts.target.secret
    ) {
      this.queue.add(this.configKey);
      return;
    }
    const keys = this.keysReferencing(namespace, name);
    for (const key of keys) this.queue.add(key);
    if (keys.length > 0) this.queue.add(this.configKey);
  }

  /** Queue keys of the objects in `namespace` whose spec refers to Secret `name`. */
  private keysReferencing(namespace: string, name: string): string[] {
    return (
      [
        ["MCPClient", this.clients],
        ["VirtualKey", this.keys],
      ] as const
    ).flatMap(([kind, informers]) =>
      (informers.get(namespace)?.items() ?? [])
        .filter((o) => referencedSecrets(kind, o).includes(name))
        .map((o) => `${kind}/${objectKey(o)}`),
    );
  }

  private now(): Date {
    return (this.opts.now ?? (() => new Date()))();
  }

  /** Renders the current caches (pure). */
  renderNow(): Rendered {
    const clients = [...this.clients.values()].flatMap((i) => i.items());
    const virtualKeys = [...this.keys.values()].flatMap((i) => i.items());
    const secrets = (ns: string, name: string) => {
      const s = this.secrets.get(ns)?.get(ns, name);
      return s ? decodeSecret(s) : undefined;
    };
    return render({
      clients,
      virtualKeys,
      secrets,
      ...(this.opts.base ? { base: this.opts.base } : {}),
    });
  }

  async reconcile(key: string): Promise<void> {
    const [kind = "", ns = "", name = ""] = key.split("/");
    const end = this.opts.metrics.reconcileSeconds.startTimer({ kind });
    try {
      if (kind === "Config") await this.reconcileConfig();
      else if (kind === "MCPClient") await this.reconcileClient(ns, name);
      else if (kind === "VirtualKey") await this.reconcileVirtualKey(ns, name);
      this.opts.metrics.reconciles.inc({ kind, result: "ok" });
    } catch (error) {
      this.opts.metrics.reconciles.inc({ kind, result: "error" });
      throw error;
    } finally {
      end();
      this.opts.metrics.queueDepth.set(this.queue.depth);
    }
  }

  /**
   * Order matters to pods that see one file change before the other: new secret values land
   * before the config that references them, and removed values go only after the config that
   * stopped referencing them (the Secret is written twice when values are both added and
   * removed).
   */
  private async reconcileConfig(): Promise<void> {
    const rendered = this.renderNow();
    const { namespace, configMap, secret } = this.opts.target;
    const existingSecret = await this.readOptional(() =>
      this.core.readNamespacedSecret({ namespace, name: secret }),
    );
    const finalSecret = desiredSecret(
      rendered,
      this.opts.target,
      existingSecret,
    );
    let current = existingSecret;
    if (!current) {
      current = await this.write("secrets", "create", () =>
        this.core.createNamespacedSecret({ namespace, body: finalSecret }),
      );
    } else if (lacksValues(current, finalSecret)) {
      const union = {
        ...finalSecret,
        data: { ...current.data, ...finalSecret.data },
      };
      current = await this.write("secrets", "update", () =>
        this.core.replaceNamespacedSecret({
          namespace,
          name: secret,
          body: union,
        }),
      );
    }
    const existingCm = await this.readOptional(() =>
      this.core.readNamespacedConfigMap({ namespace, name: configMap }),
    );
    const cm = desiredConfigMap(rendered, this.opts.target, existingCm);
    if (!existingCm)
      await this.write("configmaps", "create", () =>
        this.core.createNamespacedConfigMap({ namespace, body: cm }),
      );
    else if (!converged(existingCm, cm))
      await this.write("configmaps", "update", () =>
        this.core.replaceNamespacedConfigMap({
          namespace,
          name: configMap,
          body: cm,
        }),
      );
    const pruned = desiredSecret(rendered, this.opts.target, current);
    if (!converged(current, pruned))
      await this.write("secrets", "update", () =>
        this.core.replaceNamespacedSecret({
          namespace,
          name: secret,
          body: pruned,
        }),
      );
    this.countResources(rendered);
  }

  private countResources(r: Rendered): void {
    for (const [kind, verdicts] of [
      ["MCPClient", r.clients],
      ["VirtualKey", r.virtualKeys],
    ] as const) {
      const ready = [...verdicts.values()].filter((v) => v.ok).length;
      this.opts.metrics.resources.set({ kind, ready: "true" }, ready);
      this.opts.metrics.resources.set(
        { kind, ready: "false" },
        verdicts.size - ready,
      );
    }
  }

  private async readOptional<T>(
    read: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (httpCode(error) === 404) return undefined;
      throw error;
    }
  }

  private async write<T>(
    resource: string,
    verb: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    const out = await fn();
    this.opts.metrics.writes.inc({ resource, verb });
    return out;
  }

  private statusContext(): StatusContext {
    return {
      now: this.now(),
      ...(this.opts.staleAfterMs === undefined
        ? {}
        : { staleAfterMs: this.opts.staleAfterMs }),
    };
  }

  private async reconcileClient(ns: string, name: string): Promise<void> {
    const obj = this.clients.get(ns)?.get(ns, name);
    if (!obj) return;
    const verdict = this.renderNow().clients.get(objectKey(obj));
    let runtime: ClientRuntime | undefined;
    if (verdict?.ok) {
      try {
        runtime = await this.opts.statusSource.read(verdict.name);
      } catch (error) {
        // The state store being away must not flap conditions: keep the last status and retry.
        this.opts.logger.warn(
          { client: verdict.name, err: String(error) },
          "cannot read client status from the state store",
        );
        return;
      }
    }
    const prev = MCPClientStatus.safeParse(obj.status ?? {});
    const status = mcpClientStatus(
      obj,
      verdict,
      runtime,
      prev.success ? prev.data : undefined,
      this.statusContext(),
    );
    await this.writeStatus("MCPClient", obj, status);
  }

  private async reconcileVirtualKey(ns: string, name: string): Promise<void> {
    const obj = this.keys.get(ns)?.get(ns, name);
    if (!obj) return;
    const ref = VirtualKeySpec.safeParse(obj.spec).data?.keySecretRef;
    // The Secret event that follows a create re-runs this key with the Secret in the cache.
    if (
      ref &&
      (await this.ensureKeySecret(obj, ref.name, ref.key ?? DEFAULT_SECRET_KEY))
    )
      return;
    const verdict = this.renderNow().virtualKeys.get(objectKey(obj));
    const prev = VirtualKeyStatus.safeParse(obj.status ?? {});
    const status = virtualKeyStatus(
      obj,
      verdict,
      ref?.name,
      prev.success ? prev.data : undefined,
      this.statusContext(),
    );
    await this.writeStatus("VirtualKey", obj, status);
  }

  /** True when the key Secret was missing and has just been created. */
  private async ensureKeySecret(
    owner: CustomObject,
    secretName: string,
    key: string,
  ): Promise<boolean> {
    const ns = owner.metadata.namespace ?? "";
    if (this.secrets.get(ns)?.get(ns, secretName)) return false;
    return this.createKeySecret(owner, secretName, key);
  }

  /** Creates the key Secret with a random key; never touches an existing one. True when created. */
  private async createKeySecret(
    owner: CustomObject,
    secretName: string,
    key: string,
  ): Promise<boolean> {
    const namespace = owner.metadata.namespace ?? "";
    const value = `tgvk_${randomBytes(32).toString("base64url")}`;
    const body: V1Secret = {
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: {
        name: secretName,
        namespace,
        labels: { ...MANAGED_BY },
        // Owned by the VirtualKey, so deleting the key deletes the credential it generated.
        ownerReferences: owner.metadata.uid
          ? [
              {
                apiVersion: API_VERSION,
                kind: "VirtualKey",
                name: owner.metadata.name,
                uid: owner.metadata.uid,
                blockOwnerDeletion: false,
                controller: false,
              },
            ]
          : [],
      },
      data: { [key]: Buffer.from(value).toString("base64") },
    };
    try {
      await this.write("secrets", "create", () =>
        this.core.createNamespacedSecret({ namespace, body }),
      );
      return true;
    } catch (error) {
      if (httpCode(error) === 409) return false;
      throw error;
    }
  }

  private async writeStatus(
    kind: Kind,
    obj: CustomObject,
    status: object,
  ): Promise<void> {
    if (jsonEqual(obj.status ?? {}, status)) return;
    const { plural } = KINDS[kind];
    const body = { ...obj, apiVersion: API_VERSION, kind, status };
    await this.write(`${plural}/status`, "update", () =>
      this.custom.replaceNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace: obj.metadata.namespace ?? "",
        plural,
        name: obj.metadata.name,
        body,
      }),
    );
  }
}
