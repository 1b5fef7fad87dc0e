/**
 * The operator scenarios against a real Kubernetes cluster: install the CRDs, apply the
 * manifests in `manifests/` with the real kubectl, run the operator (in this process,
 * out of cluster, with the current KUBECONFIG context) and wait for the rendered ConfigMap
 * and Secret and for status. Runs only when KUBECONFIG is set; needs rights to create
 * namespaces and CRDs. The CRDs stay installed afterwards (other users of the cluster may
 * rely on them); the test namespace is deleted.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";

import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { silentLogger } from "../../operator/src/logger.js";
import { OperatorMetrics } from "../../operator/src/metrics.js";
import { Operator } from "../../operator/src/operator.js";
import { CONFIG_KEY } from "../../operator/src/render/children.js";
import { MemoryStatusSource } from "../../operator/src/status/status-source.js";
import { eventually } from "../../operator/test/helpers.js";
import { kubectl } from "../../operator/test/kubectl.js";
import {
  CRDS_DIR,
  invalidExamples,
  MANIFESTS_DIR,
} from "../../operator/test/manifests.js";

const kubeconfig = process.env.KUBECONFIG;
const reason = kubeconfig
  ? ""
  : " (skipped: KUBECONFIG is not set, so there is no cluster to run against)";
if (!kubeconfig) console.info(`e2e/cluster:${reason}`);

const NS = `toolgate-e2e-${randomBytes(3).toString("hex")}`;
const GW = "toolgate-gateway";
const WAIT_MS = 60_000;

async function k(...args: string[]): Promise<string> {
  const r = await kubectl(args, { KUBECONFIG: kubeconfig ?? "" });
  if (r.code !== 0)
    throw new Error(
      `kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`,
    );
  return r.stdout;
}

async function renderedClients(): Promise<string[]> {
  const text = await k(
    "get",
    "configmap",
    GW,
    "-n",
    NS,
    "-o",
    `jsonpath={.data.${CONFIG_KEY.replace(".", "\\.")}}`,
  );
  const cfg = JSON.parse(text) as {
    mcp: { client_configs: { name: string }[] };
  };
  return cfg.mcp.client_configs.map((c) => c.name);
}

const jsonpath = (kind: string, name: string, path: string) =>
  k("get", kind, name, "-n", NS, "-o", `jsonpath=${path}`);

describe.skipIf(!kubeconfig)(`operator against a real cluster${reason}`, () => {
  const operators: Operator[] = [];

  const startOperator = (identity: string): Operator => {
    const kc = new KubeConfig();
    kc.loadFromDefault();
    const op = new Operator(kc, {
      namespaces: [NS],
      target: { namespace: NS, configMap: GW, secret: GW },
      statusSource: new MemoryStatusSource(),
      statusIntervalMs: 1000,
      identity,
      leaseName: "toolgate-operator-e2e",
      leaseDurationSeconds: 5,
      retryPeriodMs: 500,
      logger: silentLogger,
      metrics: new OperatorMetrics(),
    });
    op.start();
    operators.push(op);
    return op;
  };

  beforeAll(async () => {
    await k("apply", "-f", CRDS_DIR);
    await k(
      "wait",
      "--for=condition=Established",
      "crd/mcpclients.toolgate.dev",
      "crd/virtualkeys.toolgate.dev",
      "--timeout=60s",
    );
    await k("create", "namespace", NS);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(operators.map((o) => o.stop()));
    await kubectl(["delete", "namespace", NS, "--wait=false"], {
      KUBECONFIG: kubeconfig ?? "",
    });
  });

  it.each(
    invalidExamples().map(
      (e) => [e.file.split("/").at(-1) ?? e.file, e.expect, e.file] as const,
    ),
  )("the API server refuses invalid/%s (%s)", async (_name, fragment, file) => {
    const r = await kubectl(["apply", "-n", NS, "-f", file], {
      KUBECONFIG: kubeconfig ?? "",
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(fragment);
  });

  it("serves the applied manifests and explains the invalid ones in status", async () => {
    await k("apply", "-n", NS, "-f", MANIFESTS_DIR);
    startOperator("e2e-first");
    await eventually(
      async () =>
        expect(await renderedClients()).toEqual([
          "docs",
          "everything",
          "web_search",
        ]),
      WAIT_MS,
    );
    await eventually(
      async () =>
        expect(
          await jsonpath(
            "mcpclient",
            "needs-secret",
            '{.status.conditions[?(@.type=="Ready")].reason}',
          ),
        ).toBe("SecretNotFound"),
      WAIT_MS,
    );
    await eventually(
      async () =>
        expect(
          await jsonpath(
            "mcpclient",
            "api.v2",
            '{.status.conditions[?(@.type=="Ready")].reason}',
          ),
        ).toBe("InvalidName"),
      WAIT_MS,
    );
    await eventually(
      async () =>
        expect(
          await jsonpath(
            "virtualkey",
            "team-a",
            '{.status.conditions[?(@.type=="Ready")].status}',
          ),
        ).toBe("True"),
      WAIT_MS,
    );
    expect(await jsonpath("secret", "team-a-key", "{.data.key}")).not.toBe("");
    const secretKeys = await jsonpath("secret", GW, "{.data}");
    expect(secretKeys).toContain("TG_MCPC_WEB_SEARCH_HEADER_0");
  });

  it("follows a change and a delete made with kubectl", async () => {
    await k(
      "patch",
      "mcpclient",
      "web-search",
      "-n",
      NS,
      "--type=merge",
      "-p",
      '{"spec":{"connectionString":"https://changed.example.com/mcp"}}',
    );
    await eventually(async () => {
      const text = await k(
        "get",
        "configmap",
        GW,
        "-n",
        NS,
        "-o",
        `jsonpath={.data.config\\.json}`,
      );
      expect(text).toContain("https://changed.example.com/mcp");
    }, WAIT_MS);
    await eventually(
      async () =>
        expect(
          await jsonpath(
            "mcpclient",
            "web-search",
            "{.status.observedGeneration}",
          ),
        ).toBe("2"),
      WAIT_MS,
    );
    await k(
      "delete",
      "-n",
      NS,
      "-f",
      join(MANIFESTS_DIR, "21-mcpclient-everything.yaml"),
    );
    await eventually(
      async () =>
        expect(await renderedClients()).toEqual(["docs", "web_search"]),
      WAIT_MS,
    );
  });

  it("keeps one leader among two operator instances and hands over when it stops", async () => {
    const [first] = operators;
    const second = startOperator("e2e-second");
    await eventually(() => expect(first?.isLeader).toBe(true), WAIT_MS);
    expect(second.isLeader).toBe(false);
    expect(
      await jsonpath(
        "lease",
        "toolgate-operator-e2e",
        "{.spec.holderIdentity}",
      ),
    ).toBe("e2e-first");
    await first?.stop();
    await eventually(() => expect(second.isLeader).toBe(true), WAIT_MS);
    await k(
      "apply",
      "-n",
      NS,
      "-f",
      join(MANIFESTS_DIR, "21-mcpclient-everything.yaml"),
    );
    await eventually(
      async () =>
        expect(await renderedClients()).toEqual([
          "docs",
          "everything",
          "web_search",
        ]),
      WAIT_MS,
    );
  });
});
