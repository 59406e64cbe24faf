import "server-only";
import { CoalescedTouch, KeyUsage } from "@/server/db/bookkeeping";

// What a key's use leaves behind: its last_used_at, and its requests counted by the status they
// were answered with. Best effort, off the request path (see db/bookkeeping.ts), so recording a
// use never slows or fails the request.

const keyUse = new CoalescedTouch({ table: "api_keys", column: "last_used_at" });
const usage = new KeyUsage();

/** Notes that the key was accepted now, for its last_used_at. */
export const recordLastUsed = (keyId: string): void => keyUse.record(keyId);

/** Counts a key's request by the status it was answered with, from this address and user agent. */
export const recordKeyUsage = (keyId: string, status: number, address: string, userAgent: string | null): void =>
  usage.record(keyId, status, address, userAgent);

/** Writes pending last_used_at values now; returns the number of rows written. */
export const flushLastUsed = (): Promise<number> => keyUse.flush();

/** Writes the usage counted so far now; returns the number of keys written. */
export const flushKeyUsage = (): Promise<number> => usage.flush();

/** Deletes usage buckets past their retention now. */
export const pruneKeyUsage = (): Promise<void> => usage.prune();
