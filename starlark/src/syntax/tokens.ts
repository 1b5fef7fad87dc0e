// Starlark lexical tokens, as starlark-go's syntax/scan.go defines them.
//
// A token kind is a string: the UPPER-CASE sentinels for tokens with a value or no text,
// the punctuation itself ("+", "<<=", ...) and the keyword itself ("for", "lambda", ...).
// `describeToken` renders a kind the way Go's `%#v` of a Token does, because the parser's
// messages ("got ',', want ']'") are matched word for word by the conformance suite.

export type SpecialToken =
  | "ILLEGAL"
  | "EOF"
  | "NEWLINE"
  | "INDENT"
  | "OUTDENT"
  | "IDENT"
  | "INT"
  | "FLOAT"
  | "STRING"
  | "BYTES"
  | "FSTRING";

export const PUNCTUATION = [
  "+",
  "-",
  "*",
  "/",
  "//",
  "%",
  "&",
  "|",
  "^",
  "<<",
  ">>",
  "~",
  ".",
  ",",
  "=",
  ";",
  ":",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "<",
  ">",
  ">=",
  "<=",
  "==",
  "!=",
  "+=",
  "-=",
  "*=",
  "/=",
  "//=",
  "%=",
  "&=",
  "|=",
  "^=",
  "<<=",
  ">>=",
  "**",
] as const;
export type Punctuation = (typeof PUNCTUATION)[number];

export const KEYWORDS = [
  "and",
  "break",
  "continue",
  "def",
  "elif",
  "else",
  "for",
  "if",
  "in",
  "lambda",
  "load",
  "not",
  "or",
  "pass",
  "return",
  "while",
] as const;

/** Python keywords that Starlark reserves. `assert` is deliberately NOT reserved (starlark-go
 * un-reserves it because tests use `assert` as a module name). */
export const RESERVED = [
  "as",
  "async",
  "await",
  "class",
  "del",
  "except",
  "finally",
  "from",
  "global",
  "import",
  "is",
  "nonlocal",
  "raise",
  "try",
  "with",
  "yield",
] as const;

export type Keyword =
  (typeof KEYWORDS)[number] | (typeof RESERVED)[number] | "not in";

export type Token = SpecialToken | Punctuation | Keyword;

export const KEYWORD_TOKENS: ReadonlyMap<string, Keyword> = new Map<
  string,
  Keyword
>([...KEYWORDS, ...RESERVED].map((k) => [k, k]));

const PUNCT_SET: ReadonlySet<string> = new Set<string>(PUNCTUATION);

const SPECIAL_NAMES: Record<SpecialToken, string> = {
  ILLEGAL: "illegal token",
  EOF: "end of file",
  NEWLINE: "newline",
  INDENT: "indent",
  OUTDENT: "outdent",
  IDENT: "identifier",
  INT: "int literal",
  FLOAT: "float literal",
  STRING: "string literal",
  BYTES: "bytes literal",
  FSTRING: "f-string literal",
};

/** The token as Go's `%#v` prints it: punctuation quoted, everything else bare. */
export function describeToken(tok: Token): string {
  if (PUNCT_SET.has(tok)) return `'${tok}'`;
  return tokenName(tok);
}

/** The token as Go's `%s` prints it. */
export function tokenName(tok: Token): string {
  return (SPECIAL_NAMES as Record<string, string | undefined>)[tok] ?? tok;
}
