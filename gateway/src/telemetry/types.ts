/**
 * What other parts report to telemetry. Recorders are fire-and-forget and cheap: callers never
 * await them, and implementations defer any real work off the request path (SPEC 11).
 */

/** SPEC 11.2 base labels; absent ones are exported as "". */
export interface ProviderCallLabels {
  readonly provider: string;
  readonly model: string;
  /** chat, text, embedding, speech, transcription */
  readonly method: string;
  readonly virtual_key_id?: string;
  readonly virtual_key_name?: string;
  readonly routing_engines_used?: string;
  readonly routing_rule_id?: string;
  readonly routing_rule_name?: string;
  readonly selected_key_id?: string;
  readonly selected_key_name?: string;
  readonly number_of_retries?: number;
  readonly fallback_index?: number;
}

export interface ProviderCallResult {
  readonly labels: ProviderCallLabels;
  /** Values of client.prometheus_labels taken from x-bf-prom-<label> headers. */
  readonly custom: Readonly<Record<string, string>>;
  readonly success: boolean;
  /** For failures: a short stable reason, e.g. "http_500", "timeout", "queue_full", "network". */
  readonly reason?: string;
  readonly latencySeconds: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Streaming only. */
  readonly firstTokenSeconds?: number;
  readonly interTokenSeconds?: readonly number[];
}

export interface ProviderRecorder {
  record(result: ProviderCallResult): void;
}

export interface ToolCallRecord {
  readonly client: string;
  readonly tool: string;
  /** "success", "error" (tool returned isError), "failure" (timeout/transport/not connected) */
  readonly status: "success" | "error" | "failure";
  readonly durationSeconds: number;
}

export interface McpRecorder {
  toolCall(record: ToolCallRecord): void;
  clientState(client: string, state: string): void;
  clientReconnect(client: string): void;
  clientTools(client: string, count: number): void;
  clientRemoved(client: string): void;
  agentIterations(iterations: number): void;
  codeModeExecution(status: "success" | "error" | "timeout"): void;
}
