// What an API key's usage is counted by, shared by the server and the console's usage charts. Kept
// apart from the schemas (which build zod's validators as they load) so that a chart's page does
// not load the validation library for a list of six names.

/** The outcomes a key's requests are counted under. */
export const USAGE_OUTCOMES = ["2xx", "4xx", "401", "403", "429", "5xx"] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];
