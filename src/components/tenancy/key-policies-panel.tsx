import { DEFAULT_KEY_POLICY, KEY_POLICY_SETTINGS } from "@/lib/key-policies";
import { mutedText } from "@/components/ui/styles";

// What the key policies (settings api_keys.*) do and the value of each in force here: on Platform
// settings for every key, on an organization's settings for its service accounts' keys, which the
// organization may only make stricter.

type Values = Readonly<Record<string, unknown>>;

const shown = (value: unknown) => (value === null ? "none" : JSON.stringify(value));

export function KeyPoliciesPanel({ platform, organization }: { platform: Values; organization?: Values }) {
  return (
    <section
      aria-label="Key policies"
      className="mt-4 rounded-md border border-slate-200 px-4 py-3 text-sm dark:border-slate-800"
    >
      <h3 className="font-semibold">Key policies</h3>
      <p className={`mt-1 ${mutedText}`}>
        {organization
          ? "Settings that bound this organization's service accounts' API keys. The organization may only make the platform's values stricter: a looser value is refused."
          : "Settings that bound every API key, checked whenever a key is created, rolled or changed (422 policy_violation). Organizations may only make them stricter for their service accounts' keys."}
      </p>
      <dl className="mt-3 grid gap-x-6 gap-y-2 sm:grid-cols-[auto_1fr]">
        {KEY_POLICY_SETTINGS.map((spec) => {
          const set = organization?.[spec.key] ?? platform[spec.key];
          return (
            <div key={spec.key} className="contents">
              <dt className="font-mono text-xs">{spec.key}</dt>
              <dd>
                {spec.does}{" "}
                <span className={mutedText}>
                  Now: {set === undefined ? `${shown(DEFAULT_KEY_POLICY[spec.field])} (default)` : shown(set)}
                  {organization && organization[spec.key] !== undefined ? " (this organization)" : ""}
                </span>
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}
