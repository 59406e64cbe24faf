import "server-only";

// How many API keys one app process keeps in memory (its key cache, coalesced last_used_at writes
// and usage tallies): a platform's 50,000 keys in use at once, with room to double. Past it the least
// recently used keys are looked up again. Memory per key: docs/operating.md#memory-api-keys-in-memory.
export const API_KEYS_IN_MEMORY = 100_000;
