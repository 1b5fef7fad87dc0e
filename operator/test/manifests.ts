/** The example manifests of e2e/cluster/manifests, shared by the double tests and the cluster suite. */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { parseAllDocuments } from "yaml";

import { mcpClientCrd, virtualKeyCrd } from "../src/crds/crd.js";
import type { Crd } from "./crd-validator.js";

export const MANIFESTS_DIR = fileURLToPath(
  new URL("../../e2e/cluster/manifests/", import.meta.url),
);
export const INVALID_DIR = `${MANIFESTS_DIR}invalid/`;
export const CRDS_DIR = fileURLToPath(new URL("../../crds/", import.meta.url));

export type Doc = Record<string, unknown> & {
  kind: string;
  metadata: { name: string };
};

export function docs(path: string): Doc[] {
  return parseAllDocuments(readFileSync(path, "utf8")).map(
    (d) => d.toJS() as Doc,
  );
}

export function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => dir + f);
}

/** Each invalid example with the message fragment its `# expect:` line names. */
export function invalidExamples(): {
  file: string;
  expect: string;
  doc: Doc;
}[] {
  return yamlFiles(INVALID_DIR).map((file) => {
    const expect = /^# expect: (.+)$/m.exec(readFileSync(file, "utf8"))?.[1];
    const doc = docs(file)[0];
    if (!expect || !doc)
      throw new Error(`${file} needs one document and an "# expect:" line`);
    return { file, expect, doc };
  });
}

export function crds(): Crd[] {
  return [mcpClientCrd(), virtualKeyCrd()] as unknown as Crd[];
}
