// Chunked test files, as starlark-go's internal/chunkedfile reads them (HARNESS.md section 1).
//
// A file is split on lines consisting of `---`; each chunk is padded with newlines so that its
// line numbers are the original file's. A line containing `###` expects an error on that line:
// the text after the first `###` is a Go string literal ("..." or `...`) holding a regular
// expression, matched unanchored against the error message. `gotError` consumes an
// expectation (or records an unexpected error) and `done` reports the expectations never met.

export interface ChunkFailure {
  readonly line: number;
  readonly message: string;
}

export const CHUNK_OPTION_NAMES = [
  "set",
  "while",
  "toplevelcontrol",
  "globalreassign",
  "loadbindsglobally",
  "recursion",
] as const;
export type ChunkOption = (typeof CHUNK_OPTION_NAMES)[number];

const GO_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  '"': '"',
  "'": "'",
};

/** Unquotes a Go string literal: `raw` or "interpreted" (the usual one-character escapes,
 * which are all these files use). */
export function unquoteGo(lit: string): string {
  if (lit.length >= 2 && lit.startsWith("`") && lit.endsWith("`"))
    return lit.slice(1, -1);
  if (lit.length < 2 || !lit.startsWith('"') || !lit.endsWith('"'))
    throw notQuoted(lit);
  return unescapeGo(lit.slice(1, -1), lit);
}

const notQuoted = (lit: string): Error =>
  new Error(`not a quoted regexp: ${lit}`);

function unescapeGo(body: string, lit: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '"') throw notQuoted(lit);
    if (c !== "\\") {
      out += c;
      continue;
    }
    const v = GO_ESCAPES[body[++i] ?? ""];
    if (v === undefined) throw notQuoted(lit);
    out += v;
  }
  return out;
}

export class Chunk {
  readonly failures: ChunkFailure[] = [];
  private readonly wantErrs = new Map<number, RegExp>();

  constructor(
    readonly filename: string,
    /** the chunk's text, padded with newlines so its line numbers are the file's */
    readonly source: string,
    /** the file line of the chunk's first line */
    readonly startLine: number,
    readonly text: string,
  ) {}

  /** @internal used by readChunks */
  expect(line: number, rx: RegExp): void {
    this.wantErrs.set(line, rx);
  }

  /** Whether the chunk turns on a dialect option (`option:NAME` anywhere in its text). */
  hasOption(name: ChunkOption): boolean {
    return this.text.includes(`option:${name}`);
  }

  /** The expectations not yet consumed, by line. */
  get expectations(): ReadonlyMap<number, RegExp> {
    return this.wantErrs;
  }

  gotError(line: number, msg: string): void {
    const rx = this.wantErrs.get(line);
    if (rx === undefined) {
      this.failures.push({
        line,
        message: `${this.filename}:${line}: unexpected error: ${msg}`,
      });
      return;
    }
    this.wantErrs.delete(line);
    if (!rx.test(msg)) {
      this.failures.push({
        line,
        message: `${this.filename}:${line}: error ${JSON.stringify(msg)} does not match pattern ${JSON.stringify(rx.source)}`,
      });
    }
  }

  /** Records a failure of the whole chunk that has no better line (e.g. a crash). */
  fail(line: number, message: string): void {
    this.failures.push({
      line,
      message: `${this.filename}:${line}: ${message}`,
    });
  }

  /** Reports every expectation that no error consumed. Call once, after running the chunk. */
  done(): void {
    for (const [line, rx] of this.wantErrs) {
      this.failures.push({
        line,
        message: `${this.filename}:${line}: expected error matching ${JSON.stringify(rx.source)}`,
      });
    }
    this.wantErrs.clear();
  }
}

export function readChunks(filename: string, data: string): Chunk[] {
  const chunks: Chunk[] = [];
  let linenum = 1;
  for (const text of data.split("\n---\n")) {
    const chunk = new Chunk(
      filename,
      "\n".repeat(linenum - 1) + text,
      linenum,
      text,
    );
    for (const line of text.split("\n")) {
      const hashes = line.indexOf("###");
      if (hashes >= 0)
        parseExpectation(chunk, linenum, line.slice(hashes + 3).trim());
      linenum++;
    }
    linenum++; // the "---" line
    chunks.push(chunk);
  }
  return chunks;
}

function parseExpectation(chunk: Chunk, line: number, rest: string): void {
  try {
    chunk.expect(line, new RegExp(unquoteGo(rest)));
  } catch (err) {
    chunk.fail(line, err instanceof Error ? err.message : String(err));
  }
}
