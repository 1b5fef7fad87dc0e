/**
 * JSON Schema -> Python type annotations for the `.pyi` stubs, and example values for the docs.
 * Models read Python signatures far more reliably than JSON Schema, so the stubs carry only
 * the shapes a script needs:
 *
 * | JSON Schema                         | Python            |
 * |-------------------------------------|-------------------|
 * | string                              | str               |
 * | integer                             | int               |
 * | number                              | float             |
 * | boolean                             | bool              |
 * | null                                | None              |
 * | array (items T)                     | list[T]           |
 * | object                              | dict              |
 * | enum / const                        | Literal[...]      |
 * | type list, anyOf, oneOf             | A | B             |
 * | anything else ($ref, {}, not, ...)  | Any               |
 */

type Schema = Readonly<Record<string, unknown>>;

const SIMPLE: Readonly<Record<string, string>> = {
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
  null: "None",
  object: "dict",
};

function asSchema(v: unknown): Schema | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Schema)
    : undefined;
}

/** A JSON value as a Python literal. */
export function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pyLiteral(x)}`)
    .join(", ")}}`;
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("Any")) return "Any";
  return unique.join(" | ");
}

function typeName(t: string, schema: Schema, depth: number): string {
  if (t === "array") {
    const items = asSchema(schema.items);
    return `list[${items ? pyType(items, depth + 1) : "Any"}]`;
  }
  return SIMPLE[t] ?? "Any";
}

function literalOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return `Literal[${schema.enum.map(pyLiteral).join(", ")}]`;
  if ("const" in schema) return `Literal[${pyLiteral(schema.const)}]`;
  return undefined;
}

function alternativesOf(schema: Schema): readonly unknown[] | undefined {
  const alts = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  return alts && alts.length > 0 ? alts : undefined;
}

/** The annotation from `type` (a name or a list of names), if the schema has one. */
function declaredType(schema: Schema, depth: number): string | undefined {
  const t = schema.type;
  if (typeof t === "string") return typeName(t, schema, depth);
  if (Array.isArray(t) && t.length > 0)
    return union(
      t.map((x) =>
        typeof x === "string" ? typeName(x, schema, depth) : "Any",
      ),
    );
  return undefined;
}

/** The Python annotation for a JSON Schema. */
export function pyType(schema: Schema | undefined, depth = 0): string {
  // Deeply nested schemas add nothing a one-line stub can show.
  if (!schema || depth > 4) return "Any";
  const literal = literalOf(schema);
  if (literal !== undefined) return literal;
  const declared = declaredType(schema, depth);
  if (declared !== undefined) return declared;
  const alternatives = alternativesOf(schema);
  if (alternatives)
    return union(alternatives.map((a) => pyType(asSchema(a), depth + 1)));
  if (asSchema(schema.properties)) return "dict";
  if (asSchema(schema.items)) return typeName("array", schema, depth);
  return "Any";
}

const EXAMPLES: Readonly<Record<string, string>> = {
  integer: "1",
  number: "1.5",
  boolean: "True",
  array: "[]",
  object: "{}",
};

/** A plausible value of a schema, as a Python literal, for example calls. */
export function exampleValue(schema: Schema | undefined, name: string): string {
  if (!schema) return '"..."';
  if (schema.default !== undefined) return pyLiteral(schema.default);
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return pyLiteral(schema.enum[0]);
  if ("const" in schema) return pyLiteral(schema.const);
  const t: unknown = Array.isArray(schema.type)
    ? (schema.type as unknown[]).find((x) => x !== "null")
    : schema.type;
  return (
    (typeof t === "string" ? EXAMPLES[t] : undefined) ??
    JSON.stringify(`<${name}>`)
  );
}

export interface Param {
  readonly name: string;
  readonly schema: Schema | undefined;
  readonly required: boolean;
  readonly description: string | undefined;
}

/** The parameters of an input schema: required ones first, each group in declaration order. */
export function paramsOf(inputSchema: Schema | undefined): Param[] {
  const props = asSchema(inputSchema?.properties) ?? {};
  const required = new Set(
    Array.isArray(inputSchema?.required)
      ? inputSchema.required.filter((r): r is string => typeof r === "string")
      : [],
  );
  const params: Param[] = Object.entries(props).map(([name, s]) => {
    const schema = asSchema(s);
    const description =
      typeof schema?.description === "string" ? schema.description : undefined;
    return { name, schema, required: required.has(name), description };
  });
  return [
    ...params.filter((p) => p.required),
    ...params.filter((p) => !p.required),
  ];
}

export { asSchema };
