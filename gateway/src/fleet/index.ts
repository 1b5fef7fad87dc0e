// Several gateway pods sharing state: the glue between upstream connections and the store services.
export type {
  FleetSync,
  FleetSyncOptions,
  FleetUpstreams,
} from "./fleet-sync.js";
export { createFleetSync, healthInput } from "./fleet-sync.js";
