/**
 * Encryption at rest for secrets kept in the shared store (OAuth tokens, and anything else
 * that must not sit in Redis in clear text): AES-256-GCM with a fresh 96-bit IV per value.
 *
 * The 256-bit key is derived with HKDF-SHA256 from `state.encryption_key` (any string of 16+
 * characters, usually `env.` from a Secret), so operators do not need to produce exact key
 * bytes. Each sealed value names its key by a short id (`kid`), so keys can rotate: seal with
 * the first key, open with any listed key. The associated data binds a value to where it is
 * stored (pass the logical key), so a sealed token copied to another client's key does not open.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
} from "node:crypto";

import { z } from "zod";

import { GatewayError } from "../errors.js";

export const SealedValue = z.object({
  alg: z.literal("A256GCM"),
  kid: z.string(),
  iv: z.string(),
  ct: z.string(),
  tag: z.string(),
});
export type SealedValue = z.infer<typeof SealedValue>;

export interface Sealer {
  /** Encrypts the JSON of `value`, bound to `context` (e.g. the logical key it is stored at). */
  seal(value: unknown, context: string): SealedValue;
  /** Decrypts; TG_ERR_STATE_FORMAT when no configured key opens it or it was altered. */
  open(sealed: unknown, context: string): unknown;
}

interface Key {
  readonly kid: string;
  readonly bytes: Buffer;
}

function derive(secret: string): Key {
  if (secret.length < 16)
    throw new GatewayError(
      "TG_ERR_CONFIG_INVALID",
      "state.encryption_key must be at least 16 characters",
    );
  const bytes = Buffer.from(
    hkdfSync("sha256", secret, "toolgate", "toolgate state sealing v1", 32),
  );
  return {
    kid: createHash("sha256").update(bytes).digest("hex").slice(0, 12),
    bytes,
  };
}

/** `secrets[0]` seals; every listed secret can open (rotation: put the new one first). */
export function createSealer(secrets: string | readonly string[]): Sealer {
  const list = (typeof secrets === "string" ? [secrets] : [...secrets]).map(
    derive,
  );
  const [current] = list;
  if (!current)
    throw new GatewayError(
      "TG_ERR_CONFIG_INVALID",
      "state.encryption_key is required to store secrets in the state store",
    );
  const fail = (context: string, why: string): GatewayError =>
    new GatewayError(
      "TG_ERR_STATE_FORMAT",
      `sealed value at "${context}" cannot be opened: ${why}`,
      { context },
    );

  return {
    seal(value, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current.bytes, iv);
      cipher.setAAD(Buffer.from(context));
      const ct = Buffer.concat([
        cipher.update(JSON.stringify(value) ?? "null", "utf8"),
        cipher.final(),
      ]);
      return {
        alg: "A256GCM",
        kid: current.kid,
        iv: iv.toString("base64url"),
        ct: ct.toString("base64url"),
        tag: cipher.getAuthTag().toString("base64url"),
      };
    },
    open(sealed, context) {
      const parsed = SealedValue.safeParse(sealed);
      if (!parsed.success) throw fail(context, "it is not a sealed value");
      const { kid, iv, ct, tag } = parsed.data;
      const key = list.find((k) => k.kid === kid);
      if (!key)
        throw fail(
          context,
          `it was sealed with another state.encryption_key (key id ${kid}); configure that key (rotation: list it after the new one)`,
        );
      try {
        const decipher = createDecipheriv(
          "aes-256-gcm",
          key.bytes,
          Buffer.from(iv, "base64url"),
        );
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        const text = Buffer.concat([
          decipher.update(Buffer.from(ct, "base64url")),
          decipher.final(),
        ]).toString("utf8");
        return JSON.parse(text) as unknown;
      } catch {
        throw fail(context, "it was altered or belongs to another key");
      }
    },
  };
}
