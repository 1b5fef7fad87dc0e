/**
 * The custom resources, as zod schemas: the single source of truth for the CRDs in
 * `crds/*.yaml` (see `generate.ts`) and for how the operator reads objects from the API.
 *
 * Specs mirror the gateway's client configuration (SPEC 2.1) in Kubernetes camelCase. Secret
 * values never appear inline: header values and the OAuth client secret come from
 * `secretKeyRef`s, the virtual key from `keySecretRef`. Cross-field rules carry their CEL
 * twin in `x-kubernetes-validations` so the API server rejects what the gateway would.
 * The CEL rules need bounded lists and strings (the API server estimates their cost), hence
 * the `max` limits here that the gateway's own schema does not have.
 */
import { z } from "zod";

export const GROUP = "toolgate.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

const MAX_TOOLS = 256;
const MAX_NAME = 253;
const MAX_STRING = 2048;

const cel = (rule: string, message: string) => ({ rule, message });

const ToolName = z.string().min(1).max(MAX_NAME);
const ToolList = z.array(ToolName).max(MAX_TOOLS);

/** A key of a Secret in the resource's own namespace. */
export const SecretKeyRef = z.strictObject({
  name: z.string().min(1).max(MAX_NAME).meta({ description: "Name of a Secret in the same namespace" }),
  key: z.string().min(1).max(MAX_NAME).meta({ description: "Key inside the Secret" }),
});

export const HeaderValue = z
  .strictObject({
    value: z.string().max(MAX_STRING).optional().meta({ description: "Literal header value (not secret)" }),
    secretKeyRef: SecretKeyRef.optional(),
  })
  .refine((h) => (h.value === undefined) !== (h.secretKeyRef === undefined), {
    message: "set exactly one of value and secretKeyRef",
  })
  .meta({ "x-kubernetes-validations": [cel("has(self.value) != has(self.secretKeyRef)", "set exactly one of value and secretKeyRef")] });

export const StdioConfigSpec = z.strictObject({
  command: z.string().min(1).max(MAX_STRING),
  args: z.array(z.string().max(MAX_STRING)).max(MAX_TOOLS).optional(),
  envs: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be an environment variable name" }).max(MAX_NAME))
    .max(MAX_TOOLS)
    .optional(),
});

const Url = z.url().max(MAX_STRING);

export const OAuthConfigSpec = z.strictObject({
  clientId: z.string().min(1).max(MAX_STRING).optional(),
  clientSecretRef: SecretKeyRef.optional().meta({ description: "Omit for public clients (PKCE)" }),
  authorizeUrl: Url.optional(),
  tokenUrl: Url.optional(),
  registrationUrl: Url.optional(),
  serverUrl: Url.optional(),
  scopes: z.array(z.string().max(MAX_NAME)).max(MAX_TOOLS).optional(),
});

const AUTO_SUBSET_RULE =
  "!has(self.toolsToAutoExecute) || (has(self.toolsToExecute) && '*' in self.toolsToExecute) || " +
  "self.toolsToAutoExecute.all(t, t != '*' && has(self.toolsToExecute) && t in self.toolsToExecute)";

export const MCPClientSpec = z
  .strictObject({
    connectionType: z.enum(["stdio", "http", "sse"]),
    connectionString: z.string().min(1).max(MAX_STRING).optional().meta({ description: "URL of the MCP server (http, sse)" }),
    stdioConfig: StdioConfigSpec.optional(),
    authType: z.enum(["headers", "oauth"]).optional(),
    headers: z.record(z.string().min(1).max(MAX_NAME), HeaderValue).optional().meta({ maxProperties: 64 }),
    oauthConfig: OAuthConfigSpec.optional(),
    toolsToExecute: ToolList.optional().meta({ description: '["*"] = all; empty or absent = none' }),
    toolsToAutoExecute: ToolList.optional().meta({ description: "Must be a subset of toolsToExecute" }),
    isCodeModeClient: z.boolean().optional(),
    isPingAvailable: z.boolean().optional(),
  })
  .meta({
    "x-kubernetes-validations": [
      cel(AUTO_SUBSET_RULE, "toolsToAutoExecute must be a subset of toolsToExecute"),
      cel("self.connectionType == 'stdio' ? has(self.stdioConfig) : has(self.connectionString)", "stdio needs stdioConfig; http and sse need connectionString"),
      cel("self.connectionType != 'stdio' || (!has(self.connectionString) && !has(self.authType))", "stdio clients take neither connectionString nor authType"),
      cel("self.connectionType == 'stdio' || !has(self.stdioConfig)", "stdioConfig is only for stdio clients"),
      cel("has(self.headers) == (has(self.authType) && self.authType == 'headers')", 'headers go with authType "headers"'),
      cel("has(self.oauthConfig) == (has(self.authType) && self.authType == 'oauth')", 'oauthConfig goes with authType "oauth"'),
    ],
  });

export const Condition = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: z.string().meta({ format: "date-time" }),
  observedGeneration: z.int().optional(),
});

const Conditions = z.array(Condition).meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] });

export const MCPClientStatus = z.object({
  observedGeneration: z.int().optional(),
  conditions: Conditions.optional(),
  /** The gateway client name this resource is served as. */
  clientName: z.string().optional(),
  state: z.string().optional(),
  toolCount: z.int().optional(),
  tools: z.array(z.string()).optional(),
  toolsTruncated: z.boolean().optional(),
  lastError: z.string().optional(),
  authorizeUrl: z.string().optional(),
});

export const VirtualKeyMcpConfigSpec = z.strictObject({
  mcpClientName: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, { message: "must be a client name or an MCPClient name" })
    .max(MAX_NAME)
    .meta({ description: "Client name (web_search) or MCPClient name (web-search)" }),
  toolsToExecute: ToolList.optional(),
});

export const VirtualKeySpec = z.strictObject({
  active: z.boolean().optional().meta({ description: "Default true" }),
  mcpConfigs: z.array(VirtualKeyMcpConfigSpec).max(MAX_TOOLS).optional(),
  keySecretRef: z.strictObject({
    name: z.string().min(1).max(MAX_NAME),
    key: z.string().min(1).max(MAX_NAME).optional().meta({ description: 'Default "key"' }),
  }),
});

export const VirtualKeyStatus = z.object({
  observedGeneration: z.int().optional(),
  conditions: Conditions.optional(),
  secretName: z.string().optional(),
});

/** The parts of object metadata the operator reads. */
export const ObjectMeta = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.int().optional(),
  creationTimestamp: z.union([z.string(), z.date()]).optional(),
  deletionTimestamp: z.union([z.string(), z.date()]).optional(),
});

/** Objects as read from the API: the spec is checked by the reconciler, not here, so a bad spec becomes a condition rather than a dropped event. */
export const McpClientObject = z.looseObject({ metadata: ObjectMeta, spec: z.unknown(), status: z.unknown().optional() });
export const VirtualKeyObject = McpClientObject;

export type SecretKeyRef = z.infer<typeof SecretKeyRef>;
export type MCPClientSpec = z.infer<typeof MCPClientSpec>;
export type MCPClientStatus = z.infer<typeof MCPClientStatus>;
export type VirtualKeySpec = z.infer<typeof VirtualKeySpec>;
export type VirtualKeyStatus = z.infer<typeof VirtualKeyStatus>;
export type Condition = z.infer<typeof Condition>;
export type ObjectMeta = z.infer<typeof ObjectMeta>;
export type CustomObject = z.infer<typeof McpClientObject>;

export const KINDS = {
  MCPClient: { kind: "MCPClient", plural: "mcpclients", singular: "mcpclient", shortNames: ["mcpc"], listKind: "MCPClientList" },
  VirtualKey: { kind: "VirtualKey", plural: "virtualkeys", singular: "virtualkey", shortNames: ["vk"], listKind: "VirtualKeyList" },
} as const;
