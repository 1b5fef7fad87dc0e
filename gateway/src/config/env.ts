/**
 * `env.<VAR>` references. Any secret-bearing string in the config may name a variable instead
 * of holding the value. Values are looked up when used (so a rotated Secret takes effect on
 * the next use) in the process environment first, then as a file `<secretsDir>/<VAR>` (a
 * mounted Kubernetes Secret, `TOOLGATE_SECRETS_DIR`). At startup `missingEnvRefs` lists every
 * reference that resolves nowhere, so all of them are reported at once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { GatewayError } from "../errors.js";

const ENV_REF = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;

export interface SecretSource {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory of files named after variables (a mounted Secret). */
  readonly secretsDir?: string | undefined;
}

export const processSecretSource = (): SecretSource => ({
  env: process.env,
  secretsDir: process.env.TOOLGATE_SECRETS_DIR,
});

/** The variable name of an `env.<VAR>` reference, or undefined for a literal value. */
export function envRefName(value: string): string | undefined {
  return ENV_REF.exec(value)?.[1];
}

function lookup(name: string, source: SecretSource): string | undefined {
  const fromEnv = source.env[name];
  if (fromEnv !== undefined) return fromEnv;
  if (!source.secretsDir) return undefined;
  try {
    // Mounted Secrets keep the value verbatim; a trailing newline is an editing accident, not data.
    return readFileSync(join(source.secretsDir, name), "utf8").replace(
      /\r?\n$/,
      "",
    );
  } catch {
    return undefined;
  }
}

/** The value of a possibly-`env.` string; throws TG_ERR_CONFIG_ENV_MISSING naming the variable. */
export function resolveSecret(
  value: string,
  source: SecretSource = processSecretSource(),
): string {
  const name = envRefName(value);
  if (name === undefined) return value;
  const resolved = lookup(name, source);
  if (resolved === undefined) {
    throw new GatewayError(
      "TG_ERR_CONFIG_ENV_MISSING",
      `environment variable ${name} is not set (referenced as "${value}")`,
      {
        missing: [name],
      },
    );
  }
  return resolved;
}

/** Every `env.` reference among the given values that does not resolve, deduplicated, in order. */
export function missingEnvRefs(
  values: Iterable<string>,
  source: SecretSource = processSecretSource(),
): string[] {
  const missing = new Set<string>();
  for (const v of values) {
    const name = envRefName(v);
    if (name !== undefined && lookup(name, source) === undefined)
      missing.add(name);
  }
  return [...missing];
}
