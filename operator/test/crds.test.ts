import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Operator } from "../src/operator.js";
import { MemoryStatusSource } from "../src/status/status-source.js";
import { ApiServerDouble } from "./api-server-double.js";
import { CrdValidator } from "./crd-validator.js";
import {
  CLIENTS,
  condition,
  eventually,
  KEYS,
  NS,
  renderedConfig,
  startOperator,
} from "./helpers.js";
import { kubectl, writeKubeconfig } from "./kubectl.js";
import {
  crds,
  CRDS_DIR,
  docs,
  invalidExamples,
  MANIFESTS_DIR,
  yamlFiles,
} from "./manifests.js";

const validator = new CrdValidator(crds());
const examples = yamlFiles(MANIFESTS_DIR).flatMap((f) =>
  docs(f).map((d) => ({ file: basename(f), doc: d })),
);
const custom = examples.filter((e) => validator.handles(e.doc.kind));

describe("CRD schemas with a JSON Schema validator and CEL", () => {
  it("have example manifests to check", () => {
    expect(custom.length).toBeGreaterThanOrEqual(5);
  });

  it.each(
    custom.map((e) => [`${e.file} (${e.doc.metadata.name})`, e.doc] as const),
  )("accept the example %s", (_name, doc) => {
    expect(validator.errors(doc)).toEqual([]);
  });

  it.each(
    invalidExamples().map((e) => [basename(e.file), e.expect, e.doc] as const),
  )("reject invalid/%s: %s", (_file, fragment, doc) => {
    const errors = validator.errors(doc);
    expect(errors.join("\n")).toContain(fragment);
  });
});

describe("kubectl with the CRDs and example manifests", () => {
  let api: ApiServerDouble;
  let dir: string;
  let env: Record<string, string>;
  let op: Operator | undefined;

  beforeAll(async () => {
    api = new ApiServerDouble();
    api.admission = (o) => validator.errors(o);
    await api.start();
    dir = await mkdtemp(join(tmpdir(), "toolgate-kubectl-"));
    await writeKubeconfig(join(dir, "config"), api.url, "kubectl", NS);
    env = { KUBECONFIG: join(dir, "config"), HOME: dir };
  });

  afterAll(async () => {
    await op?.stop();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("parses every CRD and manifest offline (kubectl kustomize)", async () => {
    const files = [...yamlFiles(CRDS_DIR), ...yamlFiles(MANIFESTS_DIR)];
    const kdir = await mkdtemp(join(tmpdir(), "toolgate-kustomize-"));
    const { writeFile, copyFile } = await import("node:fs/promises");
    await Promise.all(
      files.map((f, i) => copyFile(f, join(kdir, `${i}-${basename(f)}`))),
    );
    await writeFile(
      join(kdir, "kustomization.yaml"),
      `resources:\n${files.map((f, i) => `- ${i}-${basename(f)}`).join("\n")}\n`,
    );
    const r = await kubectl(["kustomize", kdir], env);
    await rm(kdir, { recursive: true, force: true });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("name: mcpclients.toolgate.dev");
    expect(r.stdout).toContain("name: team-a");
  });

  it("accepts the CRDs in a client-side dry run", async () => {
    const r = await kubectl(
      ["apply", "--dry-run=client", "--validate=false", "-f", CRDS_DIR],
      env,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      "customresourcedefinition.apiextensions.k8s.io/mcpclients.toolgate.dev created (dry run)",
    );
    expect(r.stdout).toContain(
      "customresourcedefinition.apiextensions.k8s.io/virtualkeys.toolgate.dev created (dry run)",
    );
  });

  it.each(
    invalidExamples().map((e) => [basename(e.file), e.expect, e.file] as const),
  )(
    "refuses invalid/%s through admission (%s)",
    async (_name, fragment, file) => {
      const r = await kubectl(["apply", "--validate=false", "-f", file], env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(fragment);
    },
  );

  it("applies the example manifests, and the operator serves the valid ones and explains the rest", async () => {
    const r = await kubectl(
      ["apply", "--validate=false", "-f", MANIFESTS_DIR],
      env,
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    op = startOperator(api, new MemoryStatusSource());
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["docs", "everything", "web_search"],
      ),
    );
    await eventually(() =>
      expect(
        renderedConfig(api).governance.virtual_keys.map((k) => k.name),
      ).toEqual(["team-a"]),
    );
    await eventually(() =>
      expect(
        condition(api.get(`${CLIENTS}/needs-secret`), "Ready"),
      ).toMatchObject({
        status: "False",
        reason: "SecretNotFound",
      }),
    );
    await eventually(() =>
      expect(condition(api.get(`${CLIENTS}/api.v2`), "Ready")).toMatchObject({
        status: "False",
        reason: "InvalidName",
      }),
    );
    await eventually(() =>
      expect(condition(api.get(`${KEYS}/team-a`), "Ready")?.status).toBe(
        "True",
      ),
    );
    const got = await kubectl(
      [
        "get",
        "mcpc",
        "web-search",
        "-o",
        'jsonpath={.status.clientName} {.status.conditions[?(@.type=="Ready")].reason}',
      ],
      env,
    );
    expect(got.stdout).toBe("web_search NoReports");
    // Deleting through kubectl removes the client from the rendered config.
    const del = await kubectl(
      ["delete", "-f", join(MANIFESTS_DIR, "21-mcpclient-everything.yaml")],
      env,
    );
    expect(del.code).toBe(0);
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["docs", "web_search"],
      ),
    );
  });
});
