/**
 * Provider queues through the HTTP routes (SPEC 8.1): concurrency 1, buffer 1, the provider
 * holding the first answer behind a gate so the queue fills deterministically.
 */
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ChatApp } from "./fixtures/chat-app.js";
import { noTools, startChatApp } from "./fixtures/chat-app.js";
import type { FakeProvider } from "./fixtures/fake-provider.js";
import {
  completion,
  gate,
  startFakeProvider,
} from "./fixtures/fake-provider.js";

describe("provider queues", () => {
  let fake: FakeProvider;
  let tg: ChatApp;

  const start = async (drop: boolean, poolSize = 5000): Promise<void> => {
    tg = await startChatApp(
      {
        providers: {
          fake: {
            base_url: fake.url,
            concurrency_and_buffer_size: { concurrency: 1, buffer_size: 1 },
          },
        },
        client: { drop_excess_requests: drop, initial_pool_size: poolSize },
      },
      noTools,
    );
  };

  beforeEach(async () => {
    fake = await startFakeProvider();
  });

  afterEach(async () => {
    await tg.close();
    await fake.close();
  });

  const ask = (text: string, signal?: AbortSignal) =>
    tg
      .openai()
      .chat.completions.create(
        { model: "fake/m", messages: [{ role: "user", content: text }] },
        signal ? { signal } : {},
      );

  /** A in flight (held by the provider), B waiting in the buffer. */
  const fill = async (): Promise<{
    open: () => void;
    a: Promise<unknown>;
    b: Promise<unknown>;
  }> => {
    const g = gate();
    fake.push(
      { gate: g.promise, body: completion({ content: "A" }) },
      { body: completion({ content: "B" }) },
    );
    const a = ask("A");
    await fake.received(0);
    const b = ask("B");
    await vi.waitFor(() =>
      expect(tg.chat.queueStats("fake")).toMatchObject({
        inFlight: 1,
        waiting: 1,
      }),
    );
    return { open: g.open, a, b };
  };

  it("rejects at once with 429 'request dropped: queue is full' when the buffer is full and dropping is on", async () => {
    await start(true);
    const { open, a, b } = await fill();
    const err = await ask("C").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      code: "TG_ERR_QUEUE_FULL",
      message: "request dropped: queue is full",
    });
    open();
    await Promise.all([a, b]);
    expect(fake.requests.map((r) => r.body.messages[0].content)).toEqual([
      "A",
      "B",
    ]);
    await vi.waitFor(() =>
      expect(tg.recorder.calls.some((c) => c.reason === "queue_full")).toBe(
        true,
      ),
    );
  });

  it("makes the request wait for room when dropping is off, then serves all in arrival order", async () => {
    await start(false);
    const { open, a, b } = await fill();
    fake.push({ body: completion({ content: "C" }) });
    const c = ask("C");
    await vi.waitFor(() =>
      expect(tg.chat.queueStats("fake")).toMatchObject({
        inFlight: 1,
        waiting: 1,
        overflow: 1,
      }),
    );
    expect(fake.requests).toHaveLength(1);
    open();
    const answers = (await Promise.all([a, b, c])) as OpenAI.ChatCompletion[];
    expect(answers.map((r) => r.choices[0]?.message.content)).toEqual([
      "A",
      "B",
      "C",
    ]);
    expect(fake.requests.map((r) => r.body.messages[0].content)).toEqual([
      "A",
      "B",
      "C",
    ]);
  });

  it("cancels a waiting request when its caller disconnects, so it never reaches the provider", async () => {
    await start(false);
    const g = gate();
    fake.push(
      { gate: g.promise, body: completion({ content: "A" }) },
      { body: completion({ content: "C" }) },
    );
    const a = ask("A");
    await fake.received(0);
    const ac = new AbortController();
    const b = ask("B", ac.signal).catch((e: unknown) => e);
    await vi.waitFor(() => expect(tg.chat.queueStats("fake")?.waiting).toBe(1));
    ac.abort();
    expect(await b).toBeInstanceOf(OpenAI.APIUserAbortError);
    await vi.waitFor(() => expect(tg.chat.queueStats("fake")?.waiting).toBe(0));
    const c = ask("C");
    g.open();
    await Promise.all([a, c]);
    expect(fake.requests.map((r) => r.body.messages[0].content)).toEqual([
      "A",
      "C",
    ]);
  });

  it("switches to dropping at runtime through setDropExcessRequests", async () => {
    await start(false);
    expect(tg.chat.dropExcessRequests).toBe(false);
    const { open, a, b } = await fill();
    tg.chat.setDropExcessRequests(true);
    expect(tg.chat.dropExcessRequests).toBe(true);
    const err = await ask("C").catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    open();
    await Promise.all([a, b]);
  });

  it("takes request contexts from the pool preallocated with initial_pool_size and gives them back", async () => {
    await start(false, 4);
    expect(tg.chat.poolStats()).toEqual({
      initialSize: 4,
      available: 4,
      inUse: 0,
      created: 4,
    });
    fake.push(
      { body: completion({ content: "A" }) },
      { body: completion({ content: "B" }) },
    );
    await ask("A");
    await ask("B");
    expect(tg.chat.poolStats()).toEqual({
      initialSize: 4,
      available: 4,
      inUse: 0,
      created: 4,
    });
  });
});
