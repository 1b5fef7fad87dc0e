/**
 * Status of MCPClient and VirtualKey resources, as pure functions of the render verdict,
 * what the gateways report and the previous status.
 *
 * Across pods the worst state wins (error > disconnected > connecting > connected): a client
 * is `connected` only when every live pod has it connected, and `Connected` says how many do.
 * `Ready` is True when the client is served, connected and (for OAuth) authorized; it is
 * Unknown until a gateway pod has reported, because "not yet known" is not a failure.
 */
import type {
  Condition,
  CustomObject,
  MCPClientStatus,
  VirtualKeyStatus,
} from "../crds/resources.js";
import type { Verdict } from "../render/desired.js";
import { type ConditionInput, setConditions } from "./conditions.js";
import type {
  ClientRuntime,
  ClientState,
  PodClientReport,
} from "./status-source.js";

export const TOOLS_CAP = 50;
export const DEFAULT_STALE_AFTER_MS = 60_000;

const SEVERITY: Record<ClientState, number> = {
  connected: 0,
  connecting: 1,
  disconnected: 2,
  error: 3,
};
const REASON: Record<ClientState, string> = {
  connected: "Connected",
  connecting: "Connecting",
  disconnected: "Disconnected",
  error: "Error",
};

export interface StatusContext {
  now: Date;
  staleAfterMs?: number;
  toolsCap?: number;
}

export interface Summary {
  state: ClientState;
  pods: number;
  connectedPods: number;
  toolCount: number;
  tools: string[];
  toolsTruncated: boolean;
  lastError?: string;
}

/** Folds the live pods' reports into one view; undefined when no live pod reported. */
export function summarize(
  pods: readonly PodClientReport[],
  ctx: StatusContext,
): Summary | undefined {
  const staleAfter = ctx.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const live = pods.filter(
    (p) => ctx.now.getTime() - Date.parse(p.updatedAt) <= staleAfter,
  );
  if (live.length === 0) return undefined;
  const worst = live.reduce((w, p) =>
    SEVERITY[p.state] > SEVERITY[w.state] ? p : w,
  );
  const connected = live.filter((p) => p.state === "connected");
  const tools = [...new Set(connected.flatMap((p) => p.tools))].sort();
  const cap = ctx.toolsCap ?? TOOLS_CAP;
  const lastError =
    worst.lastError ?? live.find((p) => p.lastError)?.lastError ?? undefined;
  const summary: Summary = {
    state: worst.state,
    pods: live.length,
    connectedPods: connected.length,
    toolCount: connected.reduce((m, p) => Math.max(m, p.toolCount), 0),
    tools: tools.slice(0, cap),
    toolsTruncated: tools.length > cap,
  };
  if (lastError) summary.lastError = lastError;
  return summary;
}

function usesOAuth(obj: CustomObject): boolean {
  return (
    typeof obj.spec === "object" &&
    obj.spec !== null &&
    (obj.spec as { authType?: unknown }).authType === "oauth"
  );
}

function connectedCondition(
  s: Summary | undefined,
  generation: number | undefined,
): ConditionInput {
  const base = {
    type: "Connected",
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  if (!s)
    return {
      ...base,
      status: "Unknown",
      reason: "NoReports",
      message: "no gateway pod has reported this client yet",
    };
  const counts = `${s.connectedPods}/${s.pods} gateway pods connected`;
  if (s.state === "connected")
    return { ...base, status: "True", reason: "Connected", message: counts };
  return {
    ...base,
    status: "False",
    reason: REASON[s.state],
    message: s.lastError ? `${counts}: ${s.lastError}` : counts,
  };
}

function authorizedCondition(
  rt: ClientRuntime | undefined,
  generation: number | undefined,
): ConditionInput {
  const base = {
    type: "Authorized",
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  const o = rt?.oauth;
  if (!o)
    return {
      ...base,
      status: "Unknown",
      reason: "NoReports",
      message: "no OAuth status reported yet",
    };
  if (o.status === "authorized")
    return {
      ...base,
      status: "True",
      reason: "Authorized",
      message: "token valid",
    };
  if (o.status === "pending")
    return {
      ...base,
      status: "False",
      reason: "AuthorizationPending",
      message: "waiting for a user to authorize; open status.authorizeUrl",
    };
  return {
    ...base,
    status: "False",
    reason: "AuthorizationFailed",
    message: o.error ?? "authorization failed or the token is invalid",
  };
}

function readyOf(
  parts: ConditionInput[],
  generation: number | undefined,
): ConditionInput {
  const base = {
    type: "Ready",
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  const failing = parts.find((c) => c.status === "False");
  if (failing)
    return {
      ...base,
      status: "False",
      reason: failing.reason,
      message: failing.message,
    };
  const unknown = parts.find((c) => c.status === "Unknown");
  if (unknown)
    return {
      ...base,
      status: "Unknown",
      reason: unknown.reason,
      message: unknown.message,
    };
  return {
    ...base,
    status: "True",
    reason: "Serving",
    message: "served by the gateway",
  };
}

type NotOk = Extract<Verdict, { ok: false }>;

const genOf = (obj: CustomObject): { observedGeneration?: number } =>
  obj.metadata.generation === undefined
    ? {}
    : { observedGeneration: obj.metadata.generation };

/** A resource left out of the config: not ready for the verdict's reason; connection and authorization unknown. */
function notServedStatus(
  obj: CustomObject,
  verdict: NotOk | undefined,
  prev: MCPClientStatus | undefined,
  ctx: StatusContext,
): MCPClientStatus {
  const gen = genOf(obj);
  const reason = verdict?.reason ?? "Pending";
  const message = verdict?.message ?? "not rendered yet";
  const notServed = {
    status: "Unknown" as const,
    reason: "NotServed",
    message: "not in the gateway config",
    ...gen,
  };
  const conds: ConditionInput[] = [
    { type: "Ready", status: "False", reason, message, ...gen },
    { type: "Connected", ...notServed },
  ];
  if (usesOAuth(obj)) conds.push({ type: "Authorized", ...notServed });
  const status: MCPClientStatus = {
    ...gen,
    conditions: setConditions(prev?.conditions, conds, ctx.now),
    state: "invalid",
    toolCount: 0,
    lastError: message,
  };
  if (verdict?.name) status.clientName = verdict.name;
  return status;
}

/** Optional fields, present only when they say something. */
function extras(
  summary: Summary | undefined,
  rt: ClientRuntime | undefined,
  oauth: boolean,
): Partial<MCPClientStatus> {
  const out: Partial<MCPClientStatus> = {};
  if (summary?.toolsTruncated) out.toolsTruncated = true;
  if (summary?.lastError) out.lastError = summary.lastError;
  if (oauth && rt?.oauth?.status === "pending" && rt.oauth.authorizeUrl)
    out.authorizeUrl = rt.oauth.authorizeUrl;
  return out;
}

export function mcpClientStatus(
  obj: CustomObject,
  verdict: Verdict | undefined,
  rt: ClientRuntime | undefined,
  prev: MCPClientStatus | undefined,
  ctx: StatusContext,
): MCPClientStatus {
  if (!verdict?.ok) return notServedStatus(obj, verdict, prev, ctx);
  const generation = obj.metadata.generation;
  const oauth = usesOAuth(obj);
  const summary = summarize(rt?.pods ?? [], ctx);
  const parts = [connectedCondition(summary, generation)];
  if (oauth) parts.push(authorizedCondition(rt, generation));
  const conditions: Condition[] = setConditions(
    prev?.conditions,
    [readyOf(parts, generation), ...parts],
    ctx.now,
  );
  const counts = summary
    ? {
        state: summary.state,
        toolCount: summary.toolCount,
        tools: summary.tools,
      }
    : { state: "pending", toolCount: 0, tools: [] };
  return {
    ...genOf(obj),
    conditions,
    clientName: verdict.name,
    ...counts,
    ...extras(summary, rt, oauth),
  };
}

export function virtualKeyStatus(
  obj: CustomObject,
  verdict: Verdict | undefined,
  secretName: string | undefined,
  prev: VirtualKeyStatus | undefined,
  ctx: StatusContext,
): VirtualKeyStatus {
  const gen = genOf(obj);
  const ready: ConditionInput = verdict?.ok
    ? {
        type: "Ready",
        status: "True",
        reason: "Serving",
        message: "served by the gateway",
        ...gen,
      }
    : {
        type: "Ready",
        status: "False",
        reason: verdict?.reason ?? "Pending",
        message: verdict?.message ?? "not rendered yet",
        ...gen,
      };
  const status: VirtualKeyStatus = {
    ...gen,
    conditions: setConditions(prev?.conditions, [ready], ctx.now),
  };
  if (secretName !== undefined) status.secretName = secretName;
  return status;
}
