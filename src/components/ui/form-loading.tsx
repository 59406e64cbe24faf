import { useState, useSyncExternalStore, type ComponentType, type ReactNode } from "react";
import dynamic from "next/dynamic";

// What stands for a form loaded on demand until its script arrives: a screen's forms load with their
// validation when first shown, not with the page. A form on the page reserves its height
// (`className`, a min-height per breakpoint), so that what follows it does not move when the form
// arrives.

export function FormLoading({ className = "" }: { className?: string }) {
  return (
    <p role="status" className={`text-sm text-slate-600 dark:text-slate-300 ${className}`}>
      Loading the form…
    </p>
  );
}

// How a screen declares a form or dialog loaded on demand: `onDemand(() => import("./x").then(…))`
// gives a `next/dynamic` component (same options) whose script is fetched before the first opening
// needs it, once the page is idle or sooner when a button or link is pointed at or tabbed to, and
// which renders without suspending once the script is there (React would hold a Suspense fallback
// up to 300 ms). A part marked `idle: false` is fetched only when first shown. See
// docs/decisions/015-console-answers-at-once.md.

type Preload = () => void;
/** What waits to be fetched, when the page is idle or at the first intent to act. */
const waiting = new Set<Preload>();
let scheduled = false;

function preloadWaiting() {
  for (const preload of [...waiting]) preload();
}

function whenIdle(run: () => void) {
  const idle = () =>
    "requestIdleCallback" in window ? window.requestIdleCallback(run, { timeout: 2_000 }) : setTimeout(run, 200);
  if (document.readyState === "complete") idle();
  else window.addEventListener("load", idle, { once: true });
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  whenIdle(() => {
    scheduled = false;
    preloadWaiting();
  });
}

/** The first intent to act (pointing at or focusing a control) preloads what is still waiting. */
function onIntent(event: Event) {
  if (waiting.size > 0 && event.target instanceof Element && event.target.closest("button, a, [role=button]"))
    preloadWaiting();
}
if (typeof window !== "undefined") {
  document.addEventListener("pointerover", onIntent, { passive: true });
  document.addEventListener("focusin", onIntent);
}

const subscribeNothing = () => () => undefined;
/** False while the server renders and while the browser hydrates what it sent; true after. */
const useHydrated = () =>
  useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  );

export function onDemand<P extends object>(
  load: () => Promise<ComponentType<P>>,
  options: {
    /** What stands for it while its script downloads (by default nothing). */
    loading?: () => ReactNode;
    /** False: never rendered on the server (a form on the page, which comes right after it). */
    ssr?: boolean;
    /** False: fetched only when first shown, never ahead (a heavy part, not a dialog's form). */
    idle?: boolean;
  } = {},
): ComponentType<P> & { preload: Preload } {
  let loaded: ComponentType<P> | undefined;
  let done: Promise<unknown> | undefined;
  const preload: Preload = () => {
    waiting.delete(preload);
    // A failed download is tried again by the next preload, or by the first opening itself.
    done ??= load().then(
      (component) => {
        loaded = component;
      },
      () => {
        done = undefined;
      },
    );
  };
  const Lazy = dynamic(load, { loading: options.loading, ssr: options.ssr ?? true });
  function OnDemand(props: P) {
    const hydrated = useHydrated();
    // Chosen once per mount, so that a form never changes component (and loses what was typed) when
    // its script arrives; during hydration always the lazy one, which is what the server rendered.
    const [Component] = useState<ComponentType<P>>(() => (hydrated && loaded) || Lazy);
    return <Component {...props} />;
  }
  if (typeof window !== "undefined" && options.idle !== false) {
    waiting.add(preload);
    schedule();
  }
  return Object.assign(OnDemand, { preload });
}
