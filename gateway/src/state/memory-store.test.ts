import pino from "pino";

import { describeStateStore } from "./contract.js";
import { createStateStore } from "./create.js";
import { MemoryHub } from "./memory-backend.js";

const hub = new MemoryHub();

describeStateStore("memory", {
  open: (namespace) =>
    createStateStore({
      logger: pino({ level: "silent" }),
      namespace,
      podId: "pod-test",
      memoryHub: hub,
    }),
  raw: {
    get: (k) => Promise.resolve(hub.live(k)?.text),
    put: (k, text) => Promise.resolve(hub.put(k, text, undefined)),
  },
  fakeTimers: true,
  cleanup: (namespace) => {
    for (const k of [...hub.data.keys()])
      if (k.startsWith(`${namespace}:`)) hub.data.delete(k);
    return Promise.resolve();
  },
});
