/**
 * Validates objects against a CRD's schema the way the API server does: the OpenAPI v3
 * schema with a JSON Schema validator (ajv), then every `x-kubernetes-validations` CEL rule
 * with a CEL evaluator (@bufbuild/cel), each rule evaluated with `self` bound to the value
 * at its node. Used by the schema tests and by the API server double's admission.
 */
import { run } from "@bufbuild/cel";
import Ajv from "ajv";

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  "x-kubernetes-validations"?: { rule: string; message: string }[];
};

export interface Crd {
  spec: {
    group: string;
    names: { kind: string; plural: string };
    versions: { name: string; schema: { openAPIV3Schema: Schema } }[];
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** CEL maps, not JS objects, so `has(self.field)` tests presence. */
function toCel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toCel);
  if (isObject(v))
    return new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v;
}

export function celErrors(
  schema: Schema,
  value: unknown,
  path: string,
): string[] {
  if (value === undefined) return [];
  const errors: string[] = [];
  for (const v of schema["x-kubernetes-validations"] ?? []) {
    let ok: unknown;
    try {
      ok = run(v.rule, { self: toCel(value) } as never);
    } catch (error) {
      ok = error;
    }
    if (ok !== true) errors.push(`${path}: Invalid value: ${v.message}`);
  }
  if (schema.properties && isObject(value)) {
    for (const [k, sub] of Object.entries(schema.properties))
      errors.push(...celErrors(sub, value[k], `${path}.${k}`));
  }
  if (isObject(schema.additionalProperties) && isObject(value)) {
    for (const [k, v] of Object.entries(value))
      errors.push(
        ...celErrors(schema.additionalProperties, v, `${path}[${k}]`),
      );
  }
  if (schema.items && Array.isArray(value))
    value.forEach((v, i) =>
      errors.push(...celErrors(schema.items as Schema, v, `${path}[${i}]`)),
    );
  return errors;
}

export class CrdValidator {
  private readonly byKind = new Map<
    string,
    {
      group: string;
      version: string;
      validate: Ajv.ValidateFunction;
      schema: Schema;
    }
  >();

  constructor(crds: Crd[]) {
    const ajv = new Ajv({ allErrors: true, unknownFormats: "ignore" });
    for (const crd of crds) {
      const version = crd.spec.versions[0];
      if (!version)
        throw new Error(`CRD ${crd.spec.names.kind} has no version`);
      const schema = version.schema.openAPIV3Schema;
      this.byKind.set(crd.spec.names.kind, {
        group: crd.spec.group,
        version: version.name,
        validate: ajv.compile(schema),
        schema,
      });
    }
  }

  handles(kind: string): boolean {
    return this.byKind.has(kind);
  }

  /** Error messages for `obj`, empty when the API server would accept it. */
  errors(obj: unknown): string[] {
    if (!isObject(obj)) return ["object expected"];
    const kind = String(obj.kind);
    const entry = this.byKind.get(kind);
    if (!entry) return [`no CRD for kind ${kind}`];
    const errors: string[] = [];
    if (obj.apiVersion !== `${entry.group}/${entry.version}`)
      errors.push(`apiVersion must be ${entry.group}/${entry.version}`);
    if (!entry.validate(obj))
      errors.push(
        ...(entry.validate.errors ?? []).map(
          (e) => `${e.dataPath || "."}: ${e.message ?? "invalid"}`,
        ),
      );
    errors.push(...celErrors(entry.schema, obj, ""));
    return errors;
  }
}
