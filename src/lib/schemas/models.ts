import { z } from "zod";
import { BILLING_UNITS, MODEL_CATEGORIES } from "@/lib/models";
import {
  booleanQuery,
  EXAMPLE_TIMESTAMPS,
  LENGTH,
  list,
  listOf,
  pageQuery,
  searchTerm,
  text,
  timestamps,
} from "./common";

// The model catalog. Prices are exact decimals, carried as strings everywhere (never floats).

export { BILLING_UNITS, MODEL_CATEGORIES } from "@/lib/models";

const currencies = new Set(Intl.supportedValuesOf("currency"));
const price = z
  .string()
  .max(19)
  .regex(/^\d{1,10}(\.\d{1,8})?$/, "must be a decimal with at most 10 integer and 8 fraction digits");
const modelId = text().trim().min(1);
/** The most aliases a model has. */
const MAX_ALIASES = 50;
const currency = z
  .string()
  .max(3)
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code like USD");

const fields = {
  display_name: text().trim().nullable().optional(),
  aliases: list(modelId, MAX_ALIASES)
    .refine((a) => new Set(a).size === a.length, "must not repeat an alias")
    .optional(),
  enabled: z.boolean().optional(),
  model_category: z.enum(MODEL_CATEGORIES).optional(),
  input_billing_unit: z.enum(BILLING_UNITS).optional(),
  output_billing_unit: z.enum(BILLING_UNITS).optional(),
  input_price_per_unit: price.nullable().optional(),
  output_price_per_unit: price.nullable().optional(),
  currency: currency.refine((c) => currencies.has(c), "is not an ISO 4217 currency").optional(),
};

const gpt41 = {
  provider: "openai",
  model_id: "gpt-4.1",
  display_name: "GPT-4.1",
  aliases: ["gpt-4.1-2025-04-14"],
  model_category: "text_generation",
  input_billing_unit: "per_1m_tokens",
  output_billing_unit: "per_1m_tokens",
  input_price_per_unit: "2.00",
  output_price_per_unit: "8.00",
  currency: "USD",
};

export const createModelInput = z
  .strictObject({ provider: text(LENGTH.SHORT).trim().toLowerCase().min(1), model_id: modelId, ...fields })
  .meta({ examples: [gpt41] });
export type CreateModelInput = z.output<typeof createModelInput>;
export const updateModelInput = z
  .strictObject(fields)
  .meta({ examples: [{ input_price_per_unit: "1.75", output_price_per_unit: "7.00" }] });
export type UpdateModelInput = z.output<typeof updateModelInput>;

export const listModelsQuery = pageQuery.extend({
  q: searchTerm("Matches provider, model_id or display name, case aside."),
  provider: text(LENGTH.SHORT).optional(),
  model_category: z.enum(MODEL_CATEGORIES).optional(),
  enabled: booleanQuery.optional(),
});
export type ListModelsQuery = z.output<typeof listModelsQuery>;

export const modelParams = z.strictObject({ model_config_id: z.coerce.number().int().positive().max(2_147_483_647) });
export const lookupModelQuery = z.strictObject({ name: modelId.describe("A model_id or an alias.") });

export const modelSchema = z
  .object({
    id: z.number().int().positive().max(2_147_483_647),
    provider: text(LENGTH.SHORT),
    model_id: text(),
    display_name: text().nullable(),
    aliases: list(text(), MAX_ALIASES),
    enabled: z.boolean(),
    model_category: text(32),
    input_billing_unit: text(64),
    output_billing_unit: text(64),
    input_price_per_unit: price.nullable(),
    output_price_per_unit: price.nullable(),
    currency,
    ...timestamps,
  })
  .meta({ id: "Model", examples: [{ id: 42, ...gpt41, enabled: true, ...EXAMPLE_TIMESTAMPS }] });
export type Model = z.input<typeof modelSchema>;
export const modelListSchema = listOf(modelSchema);
