// Server modules import "server-only", so that Next.js refuses to bundle one into the browser. Outside
// Next.js (the CLI, benchmarks) Node resolves that package the way the server does: to nothing.
// Loaded with `node --import`.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (specifier !== "server-only") return next(specifier, context);
      return next(specifier, { ...context, conditions: [...context.conditions, "react-server"] });
    }`)}`,
);
