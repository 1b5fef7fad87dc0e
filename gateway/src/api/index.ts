export { clientRoutes, type ClientRoutesOptions } from "./client-routes.js";
export {
  ClientPatch,
  ClientService,
  type ClientServiceOptions,
  type ClientSource,
  type ClientView,
} from "./client-service.js";
export {
  type ClientSectionValue,
  ConfigPatch,
  configRoutes,
  type ConfigRoutesOptions,
} from "./config-routes.js";
