/**
 * `drop_excess_requests` changed at runtime through `PATCH /config` (issue 6, SPEC 8.1), on the
 * whole gateway: with the provider's one slot taken and its one-place buffer full, a chat
 * request waits while dropping is off, is refused at once with 429 after the PATCH turns it
 * on, and waits again after a PATCH turns it off.
 */
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import {
  completion,
  type FakeProvider,
  gate,
  startFakeProvider,
} from "./fixtures/fake-provider.js";
import {
  type RunningGateway,
  startGatewayApp,
} from "./fixtures/gateway-app.js";

describe("drop_excess_requests through PATCH /config", () => {
  let fake: FakeProvider;
  let g: RunningGateway;
  let client: OpenAI;

  beforeEach(async () => {
    fake = await startFakeProvider();
    g = await startGatewayApp({
      providers: {
        fake: {
          base_url: fake.url,
          concurrency_and_buffer_size: { concurrency: 1, buffer_size: 1 },
        },
      },
      client: { drop_excess_requests: false },
    });
    client = new OpenAI({
      baseURL: `${g.base}/v1`,
      apiKey: "unused",
      maxRetries: 0,
    });
  });

  afterEach(async () => {
    await g.close();
    await fake.close();
  });

  const ask = (text: string): Promise<string | null | undefined> =>
    client.chat.completions
      .create({ model: "fake/m", messages: [{ role: "user", content: text }] })
      .then((r) => r.choices[0]?.message.content);

  const patchDrop = async (value: boolean): Promise<void> => {
    const res = await fetch(`${g.base}/config`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client: { drop_excess_requests: value } }),
    });
    expect(res.status).toBe(200);
  };

  it("refuses with 429 while dropping is on and makes callers wait while it is off", async () => {
    const held = gate();
    fake.push(
      { gate: held.promise, body: completion({ content: "A" }) },
      { body: completion({ content: "B" }) },
      { body: completion({ content: "D" }) },
    );
    const a = ask("A");
    await fake.received(0);
    const b = ask("B");
    await vi.waitFor(() =>
      expect(g.runtime.chat.queueStats("fake")).toMatchObject({
        inFlight: 1,
        waiting: 1,
      }),
    );

    await patchDrop(true);
    const refused = await ask("C").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(
      (refused as InstanceType<typeof OpenAI.APIError>).error,
    ).toMatchObject({
      code: "TG_ERR_QUEUE_FULL",
      message: "request dropped: queue is full",
    });

    await patchDrop(false);
    const d = ask("D");
    await vi.waitFor(() =>
      expect(g.runtime.chat.queueStats("fake")).toMatchObject({
        inFlight: 1,
        waiting: 1,
        overflow: 1,
      }),
    );
    held.open();
    expect(await Promise.all([a, b, d])).toEqual(["A", "B", "D"]);
    expect(fake.requests.map((r) => r.body.messages[0].content)).toEqual([
      "A",
      "B",
      "D",
    ]);
  });
});
