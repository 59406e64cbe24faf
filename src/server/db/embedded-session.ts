import "server-only";
import type { PGlite } from "@electric-sql/pglite";

// PGlite has one session, which every client of its socket server shares. The server hands PGlite
// a client's messages one at a time, under PGlite's lock, and keeps to one client only while a
// transaction is open: a dump taking the lock between a client's Parse and its Bind left that Bind
// without its unnamed statement (the session's). Seen through this view an extended-query exchange
// (Parse … Sync) is open as a transaction is: a dump waits for its Sync, and so does the server
// before it turns to another client.

/** Messages of an extended-query exchange before its Sync: Parse, Bind, Describe, Execute, Close, Flush. */
const EXCHANGE_MESSAGES = new Set([..."PBDECH"].map((letter) => letter.charCodeAt(0)));

export function exchangeAware(db: PGlite): PGlite {
  let inExchange = false;
  return new Proxy(db, {
    get(target, property) {
      if (property === "isInTransaction") return () => inExchange || target.isInTransaction();
      if (property === "execProtocolRawStream") {
        return (message: Uint8Array, options: Parameters<PGlite["execProtocolRawStream"]>[1]) => {
          inExchange = EXCHANGE_MESSAGES.has(message[0] ?? 0);
          return target.execProtocolRawStream(message, options);
        };
      }
      // The server's ROLLBACK for a client gone mid-exchange ends the exchange too.
      if (property === "exec") {
        return (...args: Parameters<PGlite["exec"]>) => {
          inExchange = false;
          return target.exec(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
