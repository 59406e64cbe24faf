import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { DomainError } from "@/server/errors";
import { env } from "@/server/env";
import { systemActor, type Actor, type SystemActor } from "./actor";

// Authentication of the metrics scraper: the one caller of /api/metrics, known by the token in
// SVC_METRICS_TOKEN or, without one, by calling from this machine. Whether an operation is for the
// scraper is decided in authorize.ts, which asks isMetricsScraper.

const METRICS_SCRAPER = "metrics";
const digest = (value: string) => createHash("sha256").update(value).digest();
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1)$/;

/**
 * Who may read the metrics: whoever sends `Authorization: Bearer <SVC_METRICS_TOKEN>`; without a
 * token configured, a client on this machine (a loopback address) and nobody else.
 */
export function metricsScraper(authorization: string | null, clientAddress: string): SystemActor {
  const token = env().SVC_METRICS_TOKEN;
  if (token === undefined) {
    if (!LOOPBACK.test(clientAddress))
      throw new DomainError("forbidden", "Metrics are served to this machine only, unless SVC_METRICS_TOKEN is set.");
    return systemActor(METRICS_SCRAPER);
  }
  const presented = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  // Compared as digests, in constant time: the answer's timing tells nothing of the token.
  if (!presented || !timingSafeEqual(digest(presented), digest(token))) {
    throw new DomainError("unauthenticated", "Send the metrics token as Authorization: Bearer.");
  }
  return systemActor(METRICS_SCRAPER);
}

/** Whether the actor is the metrics scraper that metricsScraper() authenticated. */
export const isMetricsScraper = (actor: Actor): boolean => actor.kind === "system" && actor.name === METRICS_SCRAPER;
