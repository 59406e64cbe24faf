// What an orchestrator instance is made of (its framework, mode, status and tier), shared by the
// server and the console. Kept apart from the schemas (which build zod's validators as they load)
// so that a list filtered by them does not load the validation library with its page.

export const FRAMEWORK_TYPES = ["langgraph", "openai_agents", "google_adk"] as const;
export const ORCHESTRATOR_MODES = ["supervisor", "coordinator", "handoff", "grounded"] as const;
export const ORCHESTRATOR_STATUSES = ["active", "suspended", "inactive"] as const;
export const ORCHESTRATOR_TIERS = ["demand", "hot"] as const;
