/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does it:
 * take the Lease when it is free or expired, renew it while leading, and give up leading
 * when a renewal has not succeeded within the lease duration. Expiry is judged by when this
 * process last saw the Lease record change (local clock), never by comparing the holder's
 * timestamps with ours, so clock skew between nodes cannot elect two leaders. A leader steps
 * down after failing to renew for two thirds of the lease duration (client-go's renew
 * deadline), before any standby may take the Lease over. Updates carry
 * `resourceVersion`, so two candidates racing for the same Lease cannot both win (409).
 */
import type { CoordinationV1Api, V1Lease } from "@kubernetes/client-node";
import { V1MicroTime } from "@kubernetes/client-node";

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  /** How often to try to acquire or renew. */
  retryPeriodMs?: number;
  now?: () => number;
  onStartedLeading: () => void | Promise<void>;
  onStoppedLeading: () => void | Promise<void>;
  onError?: (error: unknown) => void;
}

function httpCode(err: unknown): number | undefined {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === "number" ? c : undefined;
}

export class LeaderElector {
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private observed: { record: string; at: number } | undefined;
  private lastRenew = 0;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: CoordinationV1Api,
    private readonly opts: LeaderOptions,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  private get durationMs(): number {
    return (this.opts.leaseDurationSeconds ?? 15) * 1000;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  /** Stops campaigning; a leader steps down and releases the Lease so a standby takes over at once. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.loop;
    if (!this.leading) return;
    await this.setLeading(false);
    try {
      const lease = await this.api.readNamespacedLease({
        name: this.opts.name,
        namespace: this.opts.namespace,
      });
      if (lease.spec?.holderIdentity !== this.opts.identity) return;
      lease.spec = {
        ...lease.spec,
        holderIdentity: undefined,
        renewTime: new V1MicroTime(this.now()),
      } as V1Lease["spec"] & object;
      await this.api.replaceNamespacedLease({
        name: this.opts.name,
        namespace: this.opts.namespace,
        body: lease,
      });
    } catch (error) {
      this.opts.onError?.(error);
    }
  }

  private tick(): void {
    this.loop = this.attempt().finally(() => {
      if (this.running)
        this.timer = setTimeout(
          () => this.tick(),
          this.opts.retryPeriodMs ?? 2000,
        );
    });
  }

  private async attempt(): Promise<void> {
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch (error) {
      this.opts.onError?.(error);
    }
    if (!this.running) return;
    if (ok) {
      this.lastRenew = this.now();
      if (!this.leading) await this.setLeading(true);
    } else if (
      this.leading &&
      this.now() - this.lastRenew >= (this.durationMs * 2) / 3
    ) {
      await this.setLeading(false);
    }
  }

  private async setLeading(leading: boolean): Promise<void> {
    this.leading = leading;
    try {
      await (leading
        ? this.opts.onStartedLeading()
        : this.opts.onStoppedLeading());
    } catch (error) {
      this.opts.onError?.(error);
    }
  }

  private spec(
    acquireTime: Date,
    transitions: number,
  ): NonNullable<V1Lease["spec"]> {
    return {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: this.opts.leaseDurationSeconds ?? 15,
      acquireTime: new V1MicroTime(acquireTime.getTime()),
      renewTime: new V1MicroTime(this.now()),
      leaseTransitions: transitions,
    };
  }

  private async create(): Promise<boolean> {
    const { name, namespace } = this.opts;
    try {
      await this.api.createNamespacedLease({
        namespace,
        body: {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name, namespace },
          spec: this.spec(new Date(this.now()), 0),
        },
      });
      return true;
    } catch (error) {
      // Another candidate created it first: it leads this round.
      if (httpCode(error) === 409) return false;
      throw error;
    }
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({
        name: this.opts.name,
        namespace: this.opts.namespace,
      });
    } catch (error) {
      if (httpCode(error) === 404) return undefined;
      throw error;
    }
  }

  /** True while another candidate holds the Lease and has renewed it within its duration (as observed locally). */
  private heldByOther(spec: NonNullable<V1Lease["spec"]>): boolean {
    const holder = spec.holderIdentity ?? "";
    const record = `${holder}|${String(spec.renewTime?.valueOf())}`;
    if (this.observed?.record !== record)
      this.observed = { record, at: this.now() };
    if (holder === "" || holder === this.opts.identity) return false;
    const duration =
      (spec.leaseDurationSeconds ?? this.durationMs / 1000) * 1000;
    return this.now() - this.observed.at < duration;
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const lease = await this.read();
    if (!lease) return this.create();
    const spec = lease.spec ?? {};
    if (this.heldByOther(spec)) return false;
    const mine = spec.holderIdentity === this.opts.identity;
    const acquire =
      mine && spec.acquireTime
        ? new Date(spec.acquireTime)
        : new Date(this.now());
    lease.spec = this.spec(
      acquire,
      (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
    );
    try {
      await this.api.replaceNamespacedLease({
        name: this.opts.name,
        namespace: this.opts.namespace,
        body: lease,
      });
    } catch (error) {
      if (httpCode(error) === 409) return false;
      throw error;
    }
    return true;
  }
}
