/** The price table behind gateway_cost_total: `providers.<name>.prices` of the config. */
import type { z } from "zod";

import type { GatewayConfig, ModelPrice } from "../config/schema.js";

export type Price = z.infer<typeof ModelPrice>;
/** provider name -> model name -> USD per million tokens. */
export type PriceTable = ReadonlyMap<string, ReadonlyMap<string, Price>>;

export function pricesFromConfig(
  config: Pick<GatewayConfig, "providers">,
): PriceTable {
  const table = new Map<string, ReadonlyMap<string, Price>>();
  for (const [provider, p] of Object.entries(config.providers)) {
    table.set(provider, new Map(Object.entries(p.prices)));
  }
  return table;
}

/**
 * Cost in USD of one call, or undefined when the model has no price (SPEC: absent price = no
 * cost, so no series is touched rather than a misleading 0 being added).
 */
export function costOf(
  table: PriceTable,
  provider: string,
  model: string,
  inputTokens: number,
  outputTokens: number,
): number | undefined {
  const price = table.get(provider)?.get(model);
  if (price === undefined) return undefined;
  return (
    (inputTokens * price.input_per_million +
      outputTokens * price.output_per_million) /
    1_000_000
  );
}
