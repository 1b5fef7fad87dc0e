/**
 * An incremental HTTP/1.1 response parser over Buffers: it finds the head, skips interim
 * (1xx) responses, then hands the body on de-chunked, as slices of the bytes it was given.
 * One parser lives as long as its connection; `start` arms it for the next response.
 */
import { ParseError } from "./failures.js";
import type { ResponseHead } from "./head.js";
import { CHUNKED, LENGTH, NO_BODY, parseHead } from "./head.js";

export interface ParserEvents {
  onHead(head: ResponseHead): void;
  onBody(chunk: Buffer): void;
  onComplete(): void;
}

const IDLE = 0;
const HEAD = 1;
const BODY_LENGTH = 2;
const BODY_UNTIL_CLOSE = 3;
const CHUNK_SIZE = 4;
const CHUNK_DATA = 5;
const CHUNK_END = 6;
const TRAILERS = 7;

const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
const LF = 0x0a;
const HEX = /^[0-9a-fA-F]{1,12}$/;

export class ResponseParser {
  private state = IDLE;
  private isHeadRequest = false;
  /** The head bytes seen so far when a head spans reads. */
  private partial: Buffer | undefined;
  /** Body bytes still expected: of the Content-Length, or of the current chunk. */
  private remaining = 0;
  /** A chunk-size or trailer line that spans reads. */
  private line = "";
  private trailerBytes = 0;

  constructor(
    private readonly events: ParserEvents,
    private readonly maxHeaderBytes: number,
  ) {}

  /** Arms the parser for the response to the request just sent. */
  start(isHeadRequest: boolean): void {
    this.state = HEAD;
    this.isHeadRequest = isHeadRequest;
  }

  /** Forgets a response cut short. */
  reset(): void {
    this.state = IDLE;
    this.partial = undefined;
    this.line = "";
  }

  /**
   * Feeds bytes read from the socket. Returns how many bytes were left over after the response
   * was complete (a server must not send any). Throws `ParseError`.
   */
  execute(data: Buffer): number {
    let pos = 0;
    while (pos < data.length) {
      if (this.state === IDLE) return data.length - pos;
      pos = this.step(data, pos);
    }
    return 0;
  }

  /** The peer closed the connection: completes a close-delimited body; false if the response was cut short. */
  finish(): boolean {
    if (this.state !== BODY_UNTIL_CLOSE) return this.state === IDLE;
    this.complete();
    return true;
  }

  private step(data: Buffer, pos: number): number {
    switch (this.state) {
      case HEAD:
        return this.readHead(data, pos);
      case BODY_LENGTH:
        return this.readLength(data, pos);
      case BODY_UNTIL_CLOSE:
        this.events.onBody(pos === 0 ? data : data.subarray(pos));
        return data.length;
      case CHUNK_DATA:
        return this.readChunkData(data, pos);
      default:
        return this.readLine(data, pos);
    }
  }

  private readHead(data: Buffer, pos: number): number {
    let buf = pos === 0 ? data : data.subarray(pos);
    let from = 0;
    if (this.partial) {
      from = Math.max(0, this.partial.length - 3);
      buf = Buffer.concat([this.partial, buf]);
    }
    const end = buf.indexOf(HEAD_END, from);
    if (end === -1 || end > this.maxHeaderBytes) {
      if (buf.length > this.maxHeaderBytes)
        throw new ParseError(
          `a response head larger than the ${this.maxHeaderBytes}-byte limit came`,
        );
      this.partial = buf;
      return data.length;
    }
    const consumed = end + 4 - (this.partial ? this.partial.length : 0);
    this.partial = undefined;
    this.onHead(parseHead(buf.toString("latin1", 0, end), this.isHeadRequest));
    return pos + consumed;
  }

  private onHead(head: ResponseHead): void {
    if (head.status < 200) {
      if (head.status === 101)
        throw new ParseError(
          "a 101 Switching Protocols answer (upgrades are not supported) came",
        );
      return; // interim response (100 Continue, 103 Early Hints): the final one follows
    }
    this.events.onHead(head);
    if (
      head.framing === NO_BODY ||
      (head.framing === LENGTH && head.length === 0)
    ) {
      this.complete();
    } else if (head.framing === LENGTH) {
      this.remaining = head.length;
      this.state = BODY_LENGTH;
    } else if (head.framing === CHUNKED) {
      this.state = CHUNK_SIZE;
    } else {
      this.state = BODY_UNTIL_CLOSE;
    }
  }

  private readLength(data: Buffer, pos: number): number {
    const end = Math.min(data.length, pos + this.remaining);
    this.remaining -= end - pos;
    this.events.onBody(
      pos === 0 && end === data.length ? data : data.subarray(pos, end),
    );
    if (this.remaining === 0) this.complete();
    return end;
  }

  private readChunkData(data: Buffer, pos: number): number {
    const end = Math.min(data.length, pos + this.remaining);
    this.remaining -= end - pos;
    this.events.onBody(data.subarray(pos, end));
    if (this.remaining === 0) this.state = CHUNK_END;
    return end;
  }

  /** Reads one line of the chunked framing (size line, the CRLF after data, or a trailer). */
  private readLine(data: Buffer, pos: number): number {
    const lf = data.indexOf(LF, pos);
    const end = lf === -1 ? data.length : lf;
    this.line += data.toString("latin1", pos, end);
    if (this.line.length > this.maxHeaderBytes)
      throw new ParseError(
        `a chunked-encoding line longer than the ${this.maxHeaderBytes}-byte limit came`,
      );
    if (lf === -1) return data.length;
    const line = this.line.endsWith("\r") ? this.line.slice(0, -1) : this.line;
    this.line = "";
    this.onLine(line);
    return lf + 1;
  }

  private onLine(line: string): void {
    if (this.state === CHUNK_SIZE) {
      const semi = line.indexOf(";");
      const size = (semi === -1 ? line : line.slice(0, semi)).trim();
      if (!HEX.test(size))
        throw new ParseError(
          `malformed chunk size ${JSON.stringify(line.slice(0, 40))}`,
        );
      this.remaining = parseInt(size, 16);
      this.state = this.remaining === 0 ? TRAILERS : CHUNK_DATA;
      this.trailerBytes = 0;
    } else if (this.state === CHUNK_END) {
      if (line !== "") throw new ParseError("missing CRLF after a chunk");
      this.state = CHUNK_SIZE;
    } else if (line === "") {
      this.complete(); // end of the trailers, which are dropped
    } else {
      this.trailerBytes += line.length + 2;
      if (this.trailerBytes > this.maxHeaderBytes)
        throw new ParseError(
          `trailers larger than the ${this.maxHeaderBytes}-byte limit came`,
        );
    }
  }

  private complete(): void {
    this.state = IDLE;
    this.events.onComplete();
  }
}
