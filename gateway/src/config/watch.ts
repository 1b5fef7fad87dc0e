/**
 * Hot reload of the config file. The directory is watched rather than the file: editors
 * save by writing a new file and renaming it over the old one, and Kubernetes updates a
 * mounted ConfigMap by swapping the `..data` symlink, and neither is seen by a watch on the
 * file's old inode. Events are debounced, then the file is re-read; if its text did not
 * change nothing happens. The new file is parsed, validated and env-checked as a whole:
 * when anything is wrong the running config stays and every problem is logged; otherwise
 * `onChange` receives the new config.
 */
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";

import type { Logger } from "pino";

import { type SecretSource } from "./env.js";
import { checkEnv, parseConfigText } from "./load.js";
import { isConfigError } from "./problems.js";
import type { GatewayConfig } from "./schema.js";

export interface WatchOptions {
  readonly logger: Logger;
  /** Called with each new valid config; a rejection is logged and the watch continues. */
  readonly onChange: (config: GatewayConfig) => void | Promise<void>;
  /** Quiet time after the last event before the file is read (editors and kubelet write in bursts). */
  readonly debounceMs?: number;
  readonly secrets?: SecretSource;
}

export interface ConfigWatcher {
  close(): void;
}

const DEFAULT_DEBOUNCE_MS = 200;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    // Between the removal and the rename of an atomic save the file is briefly missing; the next event re-reads it.
    return undefined;
  }
}

/** Watches `path` for changes; `initialText` is the text the running config came from (skips a no-op first event). */
export function watchConfig(
  path: string,
  options: WatchOptions,
  initialText = readText(path),
): ConfigWatcher {
  const file = resolve(path);
  const log = options.logger.child({ component: "config-watch", file });
  let lastText = initialText;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const reload = (): void => {
    timer = undefined;
    const text = readText(file);
    if (closed || text === undefined) return;
    if (text === lastText) {
      log.debug("config file event without a change of content");
      return;
    }
    lastText = text;
    let config: GatewayConfig;
    try {
      config = parseConfigText(text, file);
      checkEnv(config, file, options.secrets);
    } catch (e) {
      const problems = isConfigError(e)
        ? e.problems
        : [{ path: "(root)", message: (e as Error).message }];
      log.error(
        { problems },
        `config reload rejected; the running config stays: ${(e as Error).message}`,
      );
      return;
    }
    log.info("config file changed; applying");
    Promise.resolve()
      .then(() => options.onChange(config))
      .catch((e: unknown) =>
        log.error({ err: e }, "applying the reloaded config failed"),
      );
  };

  const name = basename(file);
  const watcher: FSWatcher = watch(
    dirname(file),
    { persistent: false },
    (_event, changed) => {
      // `..data` is the Kubernetes symlink swap; other names in the directory are not ours.
      if (changed !== null && changed !== name && !changed.startsWith("..data"))
        return;
      clearTimeout(timer);
      timer = setTimeout(reload, options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
    },
  );
  watcher.on("error", (e) =>
    log.error({ err: e }, "watching the config file failed; hot reload is off"),
  );

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}
