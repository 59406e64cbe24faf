// An organization's tiers and statuses, shared by the server and the console. Kept apart from the
// schemas (which build zod's validators as they load) so that a screen that only shows them does
// not load the validation library with its page.

/** Subscription tiers, lowest first. */
export const SUBSCRIPTION_TIERS = ["free", "pro", "enterprise"] as const;
export const ORGANIZATION_STATUSES = ["active", "suspended", "archived"] as const;
