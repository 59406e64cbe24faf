"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { BILLING_UNITS, createModelInput, MODEL_CATEGORIES, updateModelInput, type Model, type UpdateModelInput } from "@/lib/schemas/models";
import { Dialog } from "@/components/ui/dialog";
import { hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { DialogButtons } from "@/components/ui/form";
import { useTRPC } from "@/trpc/react";
import { CATEGORY_LABELS, UNIT_LABELS } from "./format";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { collectErrors, type FormErrors, serverErrors, zodErrors } from "@/components/ui/form-errors";
import { FormAlert } from "@/components/ui/states";

// "Add model" and "Edit": one form. Prices are typed as text and sent as the text typed (checked
// with the schema the server enforces), never through a JS number, so 0.00000125 stays 0.00000125.
// An edit sends only what changed; provider and model_id never change. A second enabled model with
// the same provider and model_id is refused (409), and the form says so next to the model ID.

const LABELS = {
  provider: "Provider",
  model_id: "Model ID",
  display_name: "Display name",
  aliases: "Aliases",
  model_category: "Category",
  input_price_per_unit: "Input price",
  input_billing_unit: "Input billing unit",
  output_price_per_unit: "Output price",
  output_billing_unit: "Output billing unit",
  currency: "Currency",
  enabled: "Enabled",
} as const;
type Field = keyof typeof LABELS;
type Errors = FormErrors<Field>;
type Category = (typeof MODEL_CATEGORIES)[number];
type Unit = (typeof BILLING_UNITS)[number];

const asCategory = (code: string): Category => ((MODEL_CATEGORIES as readonly string[]).includes(code) ? (code as Category) : "text_generation");
const asUnit = (code: string): Unit => ((BILLING_UNITS as readonly string[]).includes(code) ? (code as Unit) : "per_1m_tokens");
const splitList = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
const orNull = (text: string) => (text.trim() === "" ? null : text.trim());
// The schema's wording is for API clients; in the form the value is text anyway.
const friendlier = (errors: Errors): Errors =>
  Object.fromEntries(Object.entries(errors).map(([field, message]) => [field, message?.replace(", as a string", "")])) as Errors;

interface ModelDialogProps {
  /** "new" to add a model, a model to edit it, null when closed. */
  editing: Model | "new" | null;
  onClose: () => void;
  onSaved: (model: Model, created: boolean) => void;
}

export function ModelDialog({ editing, onClose, onSaved }: ModelDialogProps) {
  const model = editing === "new" ? null : editing;
  return (
    <Dialog
      open={editing !== null}
      onClose={onClose}
      title={model ? `Edit ${model.model_id}` : "Add model"}
      description={model ? `A model of ${model.provider}. Its provider and model ID do not change.` : "A model a provider offers, with its prices."}
    >
      {editing !== null && <ModelForm model={model} onCancel={onClose} onSaved={onSaved} />}
    </Dialog>
  );
}

function Labelled({ field, errors, hint, children }: { field: Field; errors: Errors; hint?: ReactNode; children: (props: { id: string; "aria-invalid"?: true; "aria-describedby"?: string }) => ReactNode }) {
  const id = useId();
  const error = errors[field];
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {LABELS[field]}
      </label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy(hint !== undefined && `${id}-hint`, error && `${id}-error`) })}
      {hint !== undefined && (
        <p id={`${id}-hint`} className={hintClass}>
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

const PRICE_HINT = "A decimal like 0.00000125, up to 8 decimal places. Empty when unknown.";

/** One side's price (a decimal string, never a number) and its billing unit. */
function PriceFields({ side, errors, price, setPrice, unit, setUnit }: {
  side: "input" | "output";
  errors: Errors;
  price: string;
  setPrice: (value: string) => void;
  unit: Unit;
  setUnit: (value: Unit) => void;
}) {
  return (
    <>
      <Labelled field={`${side}_price_per_unit`} errors={errors} hint={PRICE_HINT}>
        {(props) => (
          <input
            {...props}
            value={price}
            onChange={(event) => setPrice(event.target.value)}
            inputMode="decimal"
            autoComplete="off"
            spellCheck={false}
            className={`${inputClass} mt-1 font-mono`}
          />
        )}
      </Labelled>
      <Labelled field={`${side}_billing_unit`} errors={errors}>
        {(props) => (
          <select {...props} value={unit} onChange={(event) => setUnit(asUnit(event.target.value))} className={`${inputClass} mt-1`}>
            {BILLING_UNITS.map((u) => (
              <option key={u} value={u}>
                {UNIT_LABELS[u]}
              </option>
            ))}
          </select>
        )}
      </Labelled>
    </>
  );
}

function ModelForm({ model, onCancel, onSaved }: { model: Model | null; onCancel: () => void; onSaved: (model: Model, created: boolean) => void }) {
  const trpc = useTRPC();
  const [provider, setProvider] = useState(model?.provider ?? "");
  const [modelId, setModelId] = useState(model?.model_id ?? "");
  const [displayName, setDisplayName] = useState(model?.display_name ?? "");
  const [aliases, setAliases] = useState(model?.aliases.join(", ") ?? "");
  const [category, setCategory] = useState<Category>(asCategory(model?.model_category ?? "text_generation"));
  const [inputPrice, setInputPrice] = useState(model?.input_price_per_unit ?? "");
  const [inputUnit, setInputUnit] = useState<Unit>(asUnit(model?.input_billing_unit ?? "per_1m_tokens"));
  const [outputPrice, setOutputPrice] = useState(model?.output_price_per_unit ?? "");
  const [outputUnit, setOutputUnit] = useState<Unit>(asUnit(model?.output_billing_unit ?? "per_1m_tokens"));
  const [currency, setCurrency] = useState(model?.currency ?? "USD");
  const [enabled, setEnabled] = useState(model?.enabled ?? true);
  const [errors, setErrors] = useState<Errors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const enabledId = useId();

  const onError = (error: unknown) => setErrors(friendlier(serverErrors(error, LABELS)));
  const create = useMutation(trpc.models.create.mutationOptions({ onSuccess: (saved) => onSaved(saved, true), onError }));
  const update = useMutation(trpc.models.update.mutationOptions({ onSuccess: (saved) => onSaved(saved, false), onError }));
  const pending = create.isPending || update.isPending;

  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const values = {
      display_name: orNull(displayName),
      aliases: splitList(aliases),
      enabled,
      model_category: category,
      input_billing_unit: inputUnit,
      output_billing_unit: outputUnit,
      input_price_per_unit: orNull(inputPrice),
      output_price_per_unit: orNull(outputPrice),
      currency: currency.trim().toUpperCase(),
    };
    if (!model) {
      const parsed = createModelInput.safeParse({ provider, model_id: modelId, ...values });
      const found: Errors = parsed.success ? {} : friendlier(collectErrors(zodErrors(parsed.error), LABELS));
      if (provider.trim() === "") found.provider = "Provider must not be empty.";
      if (modelId.trim() === "") found.model_id = "Model ID must not be empty.";
      setErrors(found);
      if (!parsed.success || Object.keys(found).length > 0) return;
      return create.mutate(parsed.data);
    }
    // Only what changed, so an edit never undoes someone else's change to another field.
    const changes = Object.fromEntries(
      Object.entries(values).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(model[key as keyof typeof values])),
    ) as UpdateModelInput;
    const parsed = updateModelInput.safeParse(changes);
    if (!parsed.success) return setErrors(friendlier(collectErrors(zodErrors(parsed.error), LABELS)));
    setErrors({});
    update.mutate({ model_config_id: model.id, ...parsed.data });
  }


  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <div className="grid gap-4 sm:grid-cols-2">
        <Labelled field="provider" errors={errors} hint={model ? undefined : "Lowercase, like openai or anthropic."}>
          {(props) => (
            <input
              {...props}
              value={provider}
              onChange={(event) => setProvider(event.target.value)}
              readOnly={!!model}
              autoFocus={!model}
              autoComplete="off"
              className={`${inputClass} mt-1 read-only:bg-slate-100 dark:read-only:bg-slate-800`}
            />
          )}
        </Labelled>
        <Labelled field="model_id" errors={errors} hint={model ? undefined : "As the provider's API names it, like gpt-4o."}>
          {(props) => (
            <input
              {...props}
              value={modelId}
              onChange={(event) => setModelId(event.target.value)}
              readOnly={!!model}
              autoComplete="off"
              spellCheck={false}
              className={`${inputClass} mt-1 font-mono read-only:bg-slate-100 dark:read-only:bg-slate-800`}
            />
          )}
        </Labelled>
        <Labelled field="display_name" errors={errors}>
          {(props) => (
            <input
              {...props}
              value={displayName}
              onChange={(event) => setDisplayName(event.target.value)}
              autoFocus={!!model}
              autoComplete="off"
              className={`${inputClass} mt-1`}
            />
          )}
        </Labelled>
        <Labelled field="model_category" errors={errors}>
          {(props) => (
            <select {...props} value={category} onChange={(event) => setCategory(asCategory(event.target.value))} className={`${inputClass} mt-1`}>
              {MODEL_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {CATEGORY_LABELS[c]}
                </option>
              ))}
            </select>
          )}
        </Labelled>
      </div>

      <Labelled field="aliases" errors={errors} hint="Other names that find this model, separated by commas.">
        {(props) => (
          <input
            {...props}
            value={aliases}
            onChange={(event) => setAliases(event.target.value)}
            autoComplete="off"
            spellCheck={false}
            className={`${inputClass} mt-1 font-mono`}
          />
        )}
      </Labelled>

      <div className="grid gap-4 sm:grid-cols-2">
        <PriceFields side="input" errors={errors} price={inputPrice} setPrice={setInputPrice} unit={inputUnit} setUnit={setInputUnit} />
        <PriceFields side="output" errors={errors} price={outputPrice} setPrice={setOutputPrice} unit={outputUnit} setUnit={setOutputUnit} />
        <Labelled field="currency" errors={errors} hint="An ISO 4217 code, like USD or EUR.">
          {(props) => (
            <input
              {...props}
              value={currency}
              onChange={(event) => setCurrency(event.target.value)}
              maxLength={3}
              autoComplete="off"
              spellCheck={false}
              className={`${inputClass} mt-1 w-28 font-mono uppercase`}
            />
          )}
        </Labelled>
      </div>

      <div className="flex items-start gap-2">
        <input
          id={enabledId}
          type="checkbox"
          checked={enabled}
          onChange={(event) => setEnabled(event.target.checked)}
          aria-describedby={describedBy(`${enabledId}-hint`, errors.enabled && `${enabledId}-error`)}
          aria-invalid={errors.enabled ? true : undefined}
          className="mt-0.5 size-4 shrink-0 accent-brand-600"
        />
        <div>
          <label htmlFor={enabledId} className="text-sm font-medium">
            Enabled
          </label>
          <p id={`${enabledId}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
            Orchestrators may use an enabled model; a provider has one enabled model per model ID.
          </p>
          <FieldError id={`${enabledId}-error`} message={errors.enabled} />
        </div>
      </div>

      <FormAlert message={errors.form} />

      <DialogButtons onCancel={onCancel} pending={pending} label={model ? "Save changes" : "Add model"} />
    </form>
  );
}
