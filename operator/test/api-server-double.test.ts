/** The double's own semantics, checked through the real @kubernetes/client-node. */
import { CoreV1Api, CustomObjectsApi, Watch } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { ApiServerDouble } from "./api-server-double.js";
import { CLIENTS, eventually, mcpClient, NS } from "./helpers.js";

const group = {
  group: "toolgate.dev",
  version: "v1alpha1",
  namespace: NS,
  plural: "mcpclients",
};

describe("API server double", () => {
  let api: ApiServerDouble;

  beforeEach(async () => {
    api = new ApiServerDouble();
    await api.start();
  });

  afterEach(() => api.stop());

  it("answers a stale update with 409 Conflict and a current one with a new resourceVersion", async () => {
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: "cm" }, data: { a: "1" } },
    });
    const updated = await core.replaceNamespacedConfigMap({
      namespace: NS,
      name: "cm",
      body: { ...created, data: { a: "2" } },
    });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(
      Number(created.metadata?.resourceVersion),
    );
    await expect(
      core.replaceNamespacedConfigMap({
        namespace: NS,
        name: "cm",
        body: { ...created, data: { a: "3" } },
      }),
    ).rejects.toMatchObject({ code: 409 });
    await expect(
      core.createNamespacedConfigMap({
        namespace: NS,
        body: { metadata: { name: "cm" } },
      }),
    ).rejects.toMatchObject({ code: 409 });
    await expect(
      core.readNamespacedConfigMap({ namespace: NS, name: "nope" }),
    ).rejects.toMatchObject({
      code: 404,
    });
  });

  it("keeps spec and status apart: the status subresource changes only status, and generation follows spec", async () => {
    const custom = api.kubeConfig().makeApiClient(CustomObjectsApi);
    const created = (await custom.createNamespacedCustomObject({
      ...group,
      body: {
        ...mcpClient("a", {
          connectionType: "http",
          connectionString: "https://a",
        }),
        status: { state: "ignored" },
      },
    })) as Record<string, never>;
    expect(created).toMatchObject({ metadata: { generation: 1 } });
    expect(created.status).toBeUndefined();
    const withStatus = (await custom.replaceNamespacedCustomObjectStatus({
      ...group,
      name: "a",
      body: {
        ...created,
        spec: { connectionType: "sse" },
        status: { state: "connected" },
      },
    })) as Record<
      string,
      { generation?: number; connectionType?: string; state?: string }
    >;
    expect(withStatus.status?.state).toBe("connected");
    expect(withStatus.spec?.connectionType).toBe("http");
    expect(withStatus.metadata?.generation).toBe(1);
    const respec = (await custom.replaceNamespacedCustomObject({
      ...group,
      name: "a",
      body: {
        ...withStatus,
        spec: { connectionType: "sse", connectionString: "https://b" },
        status: { state: "overwritten?" },
      },
    })) as Record<string, { generation?: number; state?: string }>;
    expect(respec.metadata?.generation).toBe(2);
    expect(respec.status?.state).toBe("connected");
  });

  it("streams watch events after a version, sends bookmarks, and answers an expired version with 410", async () => {
    const kc = api.kubeConfig();
    api.apply(CLIENTS, mcpClient("a", {}));
    const from = String(api.resourceVersion);
    api.apply(CLIENTS, mcpClient("b", {}));
    const seen: string[] = [];
    const watch = await new Watch(kc).watch(
      CLIENTS,
      { resourceVersion: from, allowWatchBookmarks: true },
      (type, obj: { metadata: { name?: string; resourceVersion: string } }) =>
        seen.push(
          `${type} ${obj.metadata.name ?? obj.metadata.resourceVersion}`,
        ),
      () => undefined,
    );
    await eventually(() => expect(seen).toEqual(["ADDED b"]));
    api.bookmark();
    await eventually(() =>
      expect(seen).toEqual(["ADDED b", `BOOKMARK ${api.resourceVersion}`]),
    );
    watch.abort();
    api.compact();
    const errors: { code?: number }[] = [];
    await new Watch(kc).watch(
      CLIENTS,
      { resourceVersion: from },
      (type, obj: { code?: number }) => type === "ERROR" && errors.push(obj),
      () => undefined,
    );
    await eventually(() =>
      expect(errors).toEqual([expect.objectContaining({ code: 410 })]),
    );
  });
});
