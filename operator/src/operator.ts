/**
 * One operator instance: campaigns for the leader Lease and runs the controller only while
 * it leads, so of several replicas exactly one writes. Losing the Lease stops the
 * controller at once (its informers and queue); winning it again starts a fresh one, which
 * relists, so nothing carries over from an earlier term.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { CoordinationV1Api } from "@kubernetes/client-node";

import { Controller, type ControllerOptions } from "./controller.js";
import { LeaderElector } from "./kube/leader.js";

export interface OperatorOptions extends ControllerOptions {
  identity: string;
  leaseName: string;
  /** Namespace of the Lease; defaults to the gateway release's namespace. */
  leaseNamespace?: string;
  leaseDurationSeconds?: number;
  retryPeriodMs?: number;
}

export class Operator {
  private readonly elector: LeaderElector;
  private current: Controller | undefined;
  private transition: Promise<void> = Promise.resolve();

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: OperatorOptions,
  ) {
    this.elector = new LeaderElector(kc.makeApiClient(CoordinationV1Api), {
      namespace: opts.leaseNamespace ?? opts.target.namespace,
      name: opts.leaseName,
      identity: opts.identity,
      ...(opts.leaseDurationSeconds === undefined
        ? {}
        : { leaseDurationSeconds: opts.leaseDurationSeconds }),
      ...(opts.retryPeriodMs === undefined
        ? {}
        : { retryPeriodMs: opts.retryPeriodMs }),
      onStartedLeading: () => this.lead(true),
      onStoppedLeading: () => this.lead(false),
      onError: (error) =>
        opts.logger.warn(
          { err: String(error) },
          "leader election round failed",
        ),
    });
  }

  get isLeader(): boolean {
    return this.elector.isLeader;
  }

  /** The running controller while leading. */
  get controller(): Controller | undefined {
    return this.current;
  }

  /** Ready: a standby is always ready; a leader once its caches have synced. */
  get ready(): boolean {
    return !this.elector.isLeader || (this.current?.synced ?? false);
  }

  start(): void {
    this.elector.start();
  }

  async stop(): Promise<void> {
    await this.elector.stop();
    await this.transition;
  }

  private lead(leading: boolean): Promise<void> {
    this.transition = this.transition.then(async () => {
      this.opts.metrics.leader.set(leading ? 1 : 0);
      this.opts.logger.info(
        { identity: this.opts.identity },
        leading ? "became leader" : "stopped leading",
      );
      if (leading && !this.current) {
        this.current = new Controller(this.kc, this.opts);
        // Not awaited: until its caches sync, stepping down must still be able to stop it.
        this.current
          .start()
          .catch((error: unknown) =>
            this.opts.logger.error(
              { err: String(error) },
              "controller failed to start",
            ),
          );
      } else if (!leading && this.current) {
        const c = this.current;
        this.current = undefined;
        await c.stop();
      }
    });
    return this.transition;
  }
}
