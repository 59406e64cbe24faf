import "server-only";

// How many API keys one app process keeps in memory: its key cache (each resolved key, and its
// owner's grants), its coalesced last_used_at writes and its usage tallies between flushes. Sized
// for a platform with 50,000 keys in use at once, drawn at random (each must still be cached at
// its next request), with room to double. A resolved key costs about 0.9 KB of heap (its hash,
// ids, owner's name, scopes and limit; allowed networks are shared by keys with the same list), so
// a full key cache is bounded at about 90 MB, and each cache sized by this allocates about 3 MB
// of slots up front (lru-cache does). Past it, the least recently used keys are looked up again.
export const API_KEYS_IN_MEMORY = 100_000;
