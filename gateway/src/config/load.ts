/**
 * Reading a config file: JSON or YAML, parsed and validated as a whole, so one run shows every
 * problem. `checkEnv` is the startup check of SPEC 2.1: every `env.<VAR>` a secret field
 * references must resolve, and all missing variables are reported at once.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";

import { parseDocument } from "yaml";

import {
  missingEnvRefs,
  processSecretSource,
  type SecretSource,
} from "./env.js";
import {
  ConfigError,
  type ConfigProblem,
  problemsFromZod,
} from "./problems.js";
import { formatPath, secretFields } from "./redact.js";
import { GatewayConfig } from "./schema.js";

export { ConfigError, type ConfigProblem, isConfigError } from "./problems.js";

/** Validates an already-parsed document (an object from JSON or YAML). `source` names it in messages. */
export function parseConfig(raw: unknown, source = "config"): GatewayConfig {
  // An empty YAML file is `null`: every key has a default, so it means "all defaults".
  const input = raw ?? {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new ConfigError(source, [
      {
        path: "(root)",
        message:
          "the file must hold an object (a mapping of keys to values) at the top level",
      },
    ]);
  }
  const result = GatewayConfig.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(
    source,
    problemsFromZod(result.error, input, GatewayConfig),
  );
}

/** JSON for `.json` files, YAML otherwise (YAML 1.2 reads JSON too, but JSON.parse reports JSON errors better). */
export function parseConfigText(text: string, source: string): GatewayConfig {
  if (extname(source).toLowerCase() === ".json") {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(source, [
        { path: "(root)", message: `not valid JSON: ${(e as Error).message}` },
      ]);
    }
    return parseConfig(raw, source);
  }
  // Duplicate keys are errors in YAML (the default of `uniqueKeys`), so a repeated key is not silently dropped.
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      source,
      doc.errors.map((e) => ({
        path: "(root)",
        message: `not valid YAML: ${e.message.replaceAll(/\s*\n\s*/g, " ").trim()}`,
      })),
    );
  }
  return parseConfig(doc.toJS(), source);
}

/** Reads and validates a config file. Throws ConfigError (unreadable file included). */
export function loadConfigFile(path: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const reason =
      (e as NodeJS.ErrnoException).code === "ENOENT"
        ? "the file does not exist"
        : (e as Error).message;
    throw new ConfigError(path, [
      { path: "(root)", message: `cannot read the config file: ${reason}` },
    ]);
  }
  return parseConfigText(text, path);
}

/**
 * Every `env.<VAR>` reference in a secret-bearing field must resolve (environment first, then
 * a file in `TOOLGATE_SECRETS_DIR`). Throws one ConfigError listing all missing variables.
 */
export function checkEnv(
  config: GatewayConfig,
  source = "config",
  secrets: SecretSource = processSecretSource(),
): void {
  const problems: ConfigProblem[] = [];
  const missingNames = new Set<string>();
  for (const field of secretFields(config)) {
    const [name] = missingEnvRefs([field.value], secrets);
    if (name === undefined) continue;
    missingNames.add(name);
    const where = secrets.secretsDir
      ? `is not set and ${secrets.secretsDir}/${name} does not exist`
      : "is not set";
    problems.push({
      path: formatPath(field.path),
      value: JSON.stringify(field.value),
      message: `environment variable ${name} ${where}`,
    });
  }
  if (problems.length === 0) return;
  const names = [...missingNames];
  const headline = `${source}: ${names.length === 1 ? "environment variable" : "environment variables"} ${names.join(", ")} referenced by the configuration ${names.length === 1 ? "is" : "are"} not set`;
  throw new ConfigError(
    source,
    problems,
    "TG_ERR_CONFIG_ENV_MISSING",
    headline,
  );
}

/** Load + validate + env check: what startup and every reload do. */
export function loadConfig(
  path: string,
  secrets: SecretSource = processSecretSource(),
): GatewayConfig {
  const config = loadConfigFile(path);
  checkEnv(config, path, secrets);
  return config;
}
