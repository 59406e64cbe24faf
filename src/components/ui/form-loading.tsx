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
// gives a component that loads it the first time it renders (`next/dynamic`, same options), and
// downloads its script ahead of the click, so that the first opening does not wait for it
// (decisions 014 and 015):
// - once the page is idle (after its load, requestIdleCallback), every form its modules declared;
// - sooner if the person points at or tabs to a button or link before that.
// A part too heavy to fetch unasked (`idle: false`) is fetched only when first shown: fetched at the
// first pointing, its script would be parsed in the very frames the click's dialog needs.
// The script is not part of the page's first load: it is one of the chunks the page loads by itself
// after it. A form whose script has arrived renders at once, without suspending: React holds back
// content that resolves after a Suspense fallback for up to 300 ms, so a lazy component that merely
// suspends for a tick would still take that long to show.

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
