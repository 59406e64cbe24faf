import "server-only";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import { notFound } from "@/server/errors";
import type { z } from "zod";
import type { CreateModelInput, ListModelsQuery, modelSchema, UpdateModelInput } from "@/lib/schemas/models";
import { byRowId, paginate } from "@/server/services/pagination";
import { containing } from "@/server/services/search";

// The model catalog (provider_model_configs). Prices stay exact: strings in, Decimal in the database,
// strings out with their 8 fraction digits trimmed of trailing zeros.

type Row = Prisma.ProviderModelConfigGetPayload<object>;
type Model = z.output<typeof modelSchema>;

const priceOut = (value: Prisma.Decimal | null): string | null => {
  if (value === null) return null;
  const fixed = value.toFixed(8);
  return fixed.replace(/\.?0+$/, "") || "0";
};

// A mapper: prices are Decimals and aliases a JSON column in the database.
const toModel = (row: Row): Model => ({
  id: row.id,
  provider: row.provider,
  model_id: row.model_id,
  display_name: row.display_name,
  aliases: Array.isArray(row.aliases) ? row.aliases.filter((a): a is string => typeof a === "string") : [],
  enabled: row.enabled,
  model_category: row.model_category,
  input_billing_unit: row.input_billing_unit,
  output_billing_unit: row.output_billing_unit,
  input_price_per_unit: priceOut(row.input_price_per_unit),
  output_price_per_unit: priceOut(row.output_price_per_unit),
  currency: row.currency,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export async function listModels(ctx: Context, query: ListModelsQuery) {
  const contains = query.q ? containing(query.q) : undefined;
  const where = {
    ...(contains ? { OR: [{ provider: contains }, { model_id: contains }, { display_name: contains }] } : {}),
    ...(query.provider ? { provider: query.provider } : {}),
    ...(query.model_category ? { model_category: query.model_category } : {}),
    ...(query.enabled === undefined ? {} : { enabled: query.enabled }),
  };
  const { db } = ctx;
  return paginate(
    query,
    byRowId,
    (w) => db.providerModelConfig.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toModel,
  );
}

export async function createModel(ctx: Context, input: CreateModelInput) {
  return toModel(await ctx.db.providerModelConfig.create({ data: input }));
}

export async function getModel(ctx: Context, id: number) {
  const row = await ctx.db.providerModelConfig.findUnique({ where: { id } });
  if (!row) throw notFound("model");
  return toModel(row);
}

export async function updateModel(ctx: Context, id: number, input: UpdateModelInput) {
  const { db } = ctx;
  if (!(await db.providerModelConfig.findUnique({ where: { id }, select: { id: true } }))) throw notFound("model");
  return toModel(await db.providerModelConfig.update({ where: { id }, data: input }));
}

/** The enabled model a name refers to: its model_id, else one of its aliases. */
export async function lookupModel(ctx: Context, name: string) {
  const { db } = ctx;
  const row =
    (await db.providerModelConfig.findFirst({ where: { model_id: name, enabled: true }, orderBy: { id: "asc" } })) ??
    (await db.providerModelConfig.findFirst({
      where: { enabled: true, aliases: { array_contains: [name] } },
      orderBy: { id: "asc" },
    }));
  if (!row) throw notFound("model");
  return toModel(row);
}
