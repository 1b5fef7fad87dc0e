/**
 * Self-contained /mcp session ids. Any pod must be able to continue a session without a
 * lookup, so the id carries what it needs and an HMAC over it: `v1.<payload>.<signature>`,
 * payload = base64url(JSON {k: virtual key id or "", p: protocol version, t: issued at, n: nonce}).
 * A session id is never authentication: the virtual key is checked on every request, and a
 * session bound to one key is refused when presented with another (or none).
 *
 * Every pod of a fleet needs the same `server.session_secret`; without it each process uses a
 * random secret, and a session started on another pod is answered with 404, after which MCP
 * clients initialize again (the streamable HTTP transport's rule).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface SessionClaims {
  readonly keyId: string;
  readonly protocolVersion: string;
  readonly issuedAt: number;
}

function readClaims(payload: string): SessionClaims | undefined {
  try {
    const raw = JSON.parse(
      Buffer.from(payload, "base64url").toString("utf8"),
    ) as { k?: unknown; p?: unknown; t?: unknown };
    if (
      typeof raw.k !== "string" ||
      typeof raw.p !== "string" ||
      typeof raw.t !== "number"
    )
      return undefined;
    return { keyId: raw.k, protocolVersion: raw.p, issuedAt: raw.t };
  } catch {
    return undefined;
  }
}

export class SessionSigner {
  private readonly secret: Buffer;

  constructor(secret?: string) {
    this.secret = secret ? Buffer.from(secret, "utf8") : randomBytes(32);
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.secret)
      .update(payload)
      .digest("base64url");
  }

  issue(
    keyId: string | undefined,
    protocolVersion: string,
    now: number = Date.now(),
  ): string {
    const payload = Buffer.from(
      JSON.stringify({
        k: keyId ?? "",
        p: protocolVersion,
        t: now,
        n: randomBytes(8).toString("base64url"),
      }),
    ).toString("base64url");
    return `v1.${payload}.${this.sign(payload)}`;
  }

  /** The claims of a genuine id, or undefined for anything forged, altered or malformed. */
  verify(id: string): SessionClaims | undefined {
    const parts = id.split(".");
    if (parts.length !== 3 || parts[0] !== "v1") return undefined;
    const [, payload = "", signature = ""] = parts;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return undefined;
    return readClaims(payload);
  }
}
