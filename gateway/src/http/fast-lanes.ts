/**
 * Fast lanes: routes answered straight from node's `request` event, ahead of fastify's router,
 * hooks and reply. Only the hottest route takes one (POST /mcp carries every tools/call of
 * every MCP client): on the 2-core bench machine fastify's per-request machinery (routing,
 * request and reply objects, child logger, hook runners) cost about as much CPU as the rest
 * of a proxied tools/call.
 *
 * A lane keeps what the app promises on every route, and this module is where that lives:
 * the `x-request-id` header (an incoming sane id is kept), `503` and `Connection: close`
 * while the app is closing, the request metrics (an observer the telemetry plugin sets; a
 * client that leaves before the answer counts as 499, as in the fastify path), and the
 * `incoming request` / `request completed` log lines at info. The same route stays
 * registered in fastify too, so `app.inject()` and the lane reach the same handler logic.
 */
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  ServerResponse,
} from "node:http";
import { performance } from "node:perf_hooks";

import type { Logger } from "pino";

/** Records one finished request (the telemetry plugin's `http.record`). */
export type HttpObserver = (
  route: string,
  method: string,
  status: number,
  headers: IncomingHttpHeaders,
  seconds: number,
  requestBytes: number,
  responseBytes: number | undefined,
) => void;

/** What a lane handler gets besides the raw request and response. */
export interface LaneContext {
  readonly requestId: string;
  /** The request's logger (bound to its id), made on first use. */
  log(): Logger;
  /** True once the app has begun to close. */
  readonly closing: boolean;
  /** Body bytes read, for the request-size metric when there is no Content-Length. */
  requestBytes: number;
  /** Writes the whole answer in one go (JSON), with the headers every route carries. */
  send(
    status: number,
    body: string,
    headers?: Readonly<Record<string, string>>,
  ): void;
}

export type LaneHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: LaneContext,
) => void;

/** nginx's "client closed request", as the fastify path records it. */
const CLIENT_CLOSED = 499;

/** The path of a request target without its query string. */
function pathOf(url: string | undefined): string {
  if (url === undefined) return "";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const raw = headers["content-length"];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

class Lane implements LaneContext {
  requestBytes = 0;
  #log: Logger | undefined;
  #recorded = false;
  readonly #started = performance.now();

  constructor(
    private readonly lanes: FastLanes,
    private readonly route: string,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly requestId: string,
  ) {}

  get closing(): boolean {
    return this.lanes.closing;
  }

  log(): Logger {
    return (this.#log ??= this.lanes.logger.child({ reqId: this.requestId }));
  }

  send(
    status: number,
    body: string,
    headers?: Readonly<Record<string, string>>,
  ): void {
    const res = this.res;
    if (res.headersSent || res.destroyed) return;
    const length = Buffer.byteLength(body);
    const out: Record<string, string | number> = {
      "content-type": "application/json; charset=utf-8",
      "content-length": length,
      "x-request-id": this.requestId,
      ...headers,
    };
    if (this.lanes.closing) out.connection = "close";
    res.writeHead(status, out);
    res.end(body);
    this.record(status, length);
  }

  /** Once per request: the metric and the completion log line. */
  record(status: number, responseBytes: number | undefined): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const seconds = (performance.now() - this.#started) / 1000;
    const observer = this.lanes.observer;
    if (observer) {
      const requestBytes =
        declaredLength(this.req.headers) ?? this.requestBytes;
      try {
        observer(
          this.route,
          this.req.method ?? "",
          status,
          this.req.headers,
          seconds,
          requestBytes,
          responseBytes,
        );
      } catch (err) {
        this.lanes.logger.error({ err }, "recording request metrics failed");
      }
    }
    if (this.lanes.logger.isLevelEnabled("info")) {
      this.log().info(
        { res: { statusCode: status }, responseTime: seconds * 1000 },
        "request completed",
      );
    }
  }

  /** The client went away first: counted as 499, as fastify's onRequestAbort does. */
  aborted(): void {
    if (!this.res.writableFinished && !this.res.headersSent)
      this.record(CLIENT_CLOSED, undefined);
  }
}

export class FastLanes {
  readonly #lanes = new Map<string, LaneHandler>();
  /** Set by the app once it begins to close. */
  closing = false;
  /** Set by the telemetry plugin; absent: no request metrics. */
  observer: HttpObserver | undefined;

  constructor(
    readonly logger: Logger,
    private readonly requestId: (
      header: string | string[] | undefined,
    ) => string,
  ) {}

  /** Routes `method path` (exact path, any query string) to `handler`. */
  add(method: string, path: string, handler: LaneHandler): void {
    this.#lanes.set(`${method} ${path}`, handler);
  }

  /** The server's `request` listener: a lane when one matches, else `fallback` (fastify). */
  listener(
    fallback: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const route = pathOf(req.url);
      const handler =
        this.#lanes.size === 0
          ? undefined
          : this.#lanes.get(`${req.method ?? ""} ${route}`);
      if (!handler) {
        fallback(req, res);
        return;
      }
      this.#run(handler, route, req, res);
    };
  }

  #run(
    handler: LaneHandler,
    route: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): void {
    const lane = new Lane(
      this,
      route,
      req,
      res,
      this.requestId(req.headers["x-request-id"]),
    );
    res.once("close", () => lane.aborted());
    if (this.logger.isLevelEnabled("info")) {
      const socket = req.socket;
      lane.log().info(
        {
          req: {
            method: req.method,
            url: req.url,
            host: req.headers.host,
            remoteAddress: socket.remoteAddress,
            remotePort: socket.remotePort,
          },
        },
        "incoming request",
      );
    }
    if (this.closing) {
      lane.send(
        503,
        JSON.stringify({
          error: {
            code: "TG_ERR_SHUTTING_DOWN",
            message: "the gateway is shutting down",
          },
        }),
      );
      return;
    }
    try {
      handler(req, res, lane);
    } catch (err) {
      lane.log().error({ err }, "request failed");
      lane.send(
        500,
        JSON.stringify({
          error: { code: "TG_ERR_INTERNAL", message: "internal error" },
        }),
      );
    }
  }
}
