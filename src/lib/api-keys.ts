// What the console shows of an API key's expiry, shared with the server's overview. Kept apart from
// the schemas (which build zod's validators as they load) so that a list of keys does not load the
// validation library with its page.

/** Keys expiring within this many days are marked in the console and counted on the overview. */
export const EXPIRING_SOON_DAYS = 7;
