import "server-only";
import type { PGlite } from "@electric-sql/pglite";

// PGlite has one session, shared by every client of its socket server. This view of it counts an
// open extended-query exchange (Parse … Sync) as an open transaction, so the server keeps to that
// client and a dump waits until the exchange's Sync, as they do for a transaction.
// See docs/decisions/005-embedded-database.md.

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
