// Instruction set of the bytecode, after starlark-go's internal/compile.
//
// Every instruction is two slots, [opcode, argument], so jump targets are plain indexes
// into the code array and the loop needs no decoding. Operands live on a per-frame operand
// stack; active iterators on a per-frame iterator stack.

export const NOP = 0;
export const POP = 1;
export const DUP = 2;
export const DUP2 = 3;
export const EXCH = 4; // [a b] -> [b a]
export const ROT3 = 5; // [a b c] -> [c a b]
export const CONST = 6; // arg: const index
export const NONE = 7;
export const TRUE = 8;
export const FALSE = 9;
export const LOCAL = 10;
export const SETLOCAL = 11;
export const LOCALCELL = 12;
export const SETLOCALCELL = 13;
export const FREE = 14;
export const FREECELL = 15; // push the cell itself (closure capture); arg: free index
export const CELL = 16; // push a local's cell; arg: local index
export const GLOBAL = 17;
export const SETGLOBAL = 18;
export const PREDECLARED = 19; // arg: const index of the name
export const UNIVERSAL = 20; // arg: const index of the name
export const JMP = 21;
export const JMP_FALSE = 22; // pop, jump when falsy
export const JMP_FALSE_OR_POP = 23; // `and`
export const JMP_TRUE_OR_POP = 24; // `or`
export const ITERPUSH = 25;
export const ITERJMP = 26; // push next element, or jump when exhausted
export const ITERPOP = 27;
export const NOT = 28;
export const UPLUS = 29;
export const UMINUS = 30;
export const TILDE = 31;
export const PLUS = 32;
export const MINUS = 33;
export const STAR = 34;
export const SLASH = 35;
export const SLASHSLASH = 36;
export const PERCENT = 37;
export const AMP = 38;
export const PIPE = 39;
export const CIRCUMFLEX = 40;
export const LTLT = 41;
export const GTGT = 42;
export const EQL = 43;
export const NEQ = 44;
export const LT = 45;
export const GT = 46;
export const LE = 47;
export const GE = 48;
export const IN = 49;
export const NOT_IN = 50;
export const INPLACE_ADD = 51;
export const INPLACE_PIPE = 52;
export const MAKETUPLE = 53; // arg: n
export const MAKELIST = 54; // arg: n
export const MAKEDICT = 55;
export const SETDICT = 56; // [dict k v] -> [dict]
export const SETDICTUNIQ = 57;
export const APPEND = 58; // [list x] -> [list]
export const INDEX = 59;
export const SETINDEX = 60; // [v x i] -> []
export const SLICE = 61; // [x lo hi step] -> [x[lo:hi:step]]
export const ATTR = 62; // arg: const index of the name
export const SETFIELD = 63; // [v x] -> []; arg: const index of the name
export const UNPACK = 64; // arg: n; pushes elements so that the first is on top
export const CALL = 65; // arg: npos | nkw << 8 | varargs << 16 | kwargs << 17
export const MAKEFUNC = 66; // arg: index into Program.funcs
export const LOAD = 67; // arg: const index of a LoadSpec
export const RETURN = 68;
export const FORMAT = 69; // f-string field; arg: const index of a FieldSpec
export const CONCAT = 70; // arg: n strings -> one

export const OP_NAMES: readonly string[] = [
  "NOP",
  "POP",
  "DUP",
  "DUP2",
  "EXCH",
  "ROT3",
  "CONST",
  "NONE",
  "TRUE",
  "FALSE",
  "LOCAL",
  "SETLOCAL",
  "LOCALCELL",
  "SETLOCALCELL",
  "FREE",
  "FREECELL",
  "CELL",
  "GLOBAL",
  "SETGLOBAL",
  "PREDECLARED",
  "UNIVERSAL",
  "JMP",
  "JMP_FALSE",
  "JMP_FALSE_OR_POP",
  "JMP_TRUE_OR_POP",
  "ITERPUSH",
  "ITERJMP",
  "ITERPOP",
  "NOT",
  "UPLUS",
  "UMINUS",
  "TILDE",
  "PLUS",
  "MINUS",
  "STAR",
  "SLASH",
  "SLASHSLASH",
  "PERCENT",
  "AMP",
  "PIPE",
  "CIRCUMFLEX",
  "LTLT",
  "GTGT",
  "EQL",
  "NEQ",
  "LT",
  "GT",
  "LE",
  "GE",
  "IN",
  "NOT_IN",
  "INPLACE_ADD",
  "INPLACE_PIPE",
  "MAKETUPLE",
  "MAKELIST",
  "MAKEDICT",
  "SETDICT",
  "SETDICTUNIQ",
  "APPEND",
  "INDEX",
  "SETINDEX",
  "SLICE",
  "ATTR",
  "SETFIELD",
  "UNPACK",
  "CALL",
  "MAKEFUNC",
  "LOAD",
  "RETURN",
  "FORMAT",
  "CONCAT",
];
