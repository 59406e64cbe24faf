/** The REST path a route file hands to restHandlers(…), however its call is wrapped; undefined if none. */
export const restPathOf = (routeFileText: string): string | undefined =>
  /restHandlers\(\s*"([^"]+)",?\s*\)/.exec(routeFileText)?.[1];
