/** Writes `crds/*.yaml` at the repository root from the zod schemas. Run: `npm run -w operator gen:crds`. */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

import { crdFiles } from "./crd.js";

export const CRDS_DIR = fileURLToPath(new URL("../../../crds/", import.meta.url));

async function main(): Promise<void> {
  await mkdir(CRDS_DIR, { recursive: true });
  const files = crdFiles();
  for (const old of await readdir(CRDS_DIR)) {
    if (old.endsWith(".yaml") && !files.has(old)) await rm(CRDS_DIR + old);
  }
  for (const [name, text] of files) await writeFile(CRDS_DIR + name, text);
  process.stdout.write(`wrote ${[...files.keys()].join(", ")} to ${CRDS_DIR}\n`);
}

await main();
