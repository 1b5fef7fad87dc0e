/**
 * Where client status comes from: what the gateway pods report to the shared state store.
 * Each pod reports, per client, its connection state and tools; OAuth status is shared by
 * the release. The operator only reads; `MemoryStatusSource` is the in-process twin used by
 * tests and by operators run without Redis (every client then reads as "no reports").
 */
import { z } from "zod";

export const ClientState = z.enum([
  "connected",
  "connecting",
  "disconnected",
  "error",
]);
export type ClientState = z.infer<typeof ClientState>;

/** One pod's view of one client. */
export const PodClientReport = z.object({
  pod: z.string(),
  state: ClientState,
  toolCount: z.int().min(0),
  tools: z.array(z.string()),
  lastError: z.string().nullish(),
  /** ISO 8601; reports older than the staleness window are ignored (the pod is gone). */
  updatedAt: z.string(),
});
export type PodClientReport = z.infer<typeof PodClientReport>;

export const OAuthReport = z.object({
  status: z.enum(["pending", "authorized", "failed"]),
  authorizeUrl: z.string().nullish(),
  error: z.string().nullish(),
});
export type OAuthReport = z.infer<typeof OAuthReport>;

export interface ClientRuntime {
  pods: PodClientReport[];
  oauth?: OAuthReport;
}

export interface StatusSource {
  /** Everything reported for the client with this id (the client name). */
  read(clientId: string): Promise<ClientRuntime>;
  close(): Promise<void>;
}

export class MemoryStatusSource implements StatusSource {
  private readonly pods = new Map<string, Map<string, PodClientReport>>();
  private readonly oauth = new Map<string, OAuthReport>();

  report(clientId: string, r: PodClientReport): void {
    const m = this.pods.get(clientId) ?? new Map<string, PodClientReport>();
    m.set(r.pod, r);
    this.pods.set(clientId, m);
  }

  setOAuth(clientId: string, r: OAuthReport | undefined): void {
    if (r) this.oauth.set(clientId, r);
    else this.oauth.delete(clientId);
  }

  forget(clientId: string, pod?: string): void {
    if (pod === undefined) this.pods.delete(clientId);
    else this.pods.get(clientId)?.delete(pod);
  }

  read(clientId: string): Promise<ClientRuntime> {
    const oauth = this.oauth.get(clientId);
    const pods = [...(this.pods.get(clientId)?.values() ?? [])];
    return Promise.resolve(oauth ? { pods, oauth } : { pods });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
