// The API reference's reader (src/app/api/docs): a plain script, no framework; the reference reads
// the same without it.
// - The table of contents follows the reader: the entry of the part in view is marked
//   (aria-current="location") and kept in sight in the table's own scroll.
// - "Your first request" uses the address the reader is on.
// - A link to an operation on the first page (the reference's address before it was split by tag)
//   leads on to the operation on its tag's page.
(() => {
  const pages = document.getElementById("operation-pages");
  const target = location.hash.slice(1);
  if (pages && target) {
    const page = JSON.parse(pages.textContent || "{}")[target];
    if (page && !document.getElementById(target)) {
      location.replace(`${page}#${encodeURIComponent(target)}`);
      return;
    }
  }

  for (const origin of document.querySelectorAll("[data-origin]")) origin.textContent = location.origin;

  const toc = document.querySelector("[data-toc]");
  if (!toc || !("IntersectionObserver" in window)) return;
  // Entries of this page, by the id they lead to.
  const entries = new Map();
  for (const link of toc.querySelectorAll("a[href]")) {
    const url = new URL(link.href);
    if (url.pathname === location.pathname && url.hash) entries.set(decodeURIComponent(url.hash.slice(1)), link);
  }
  const sections = [...entries.keys()].map((id) => document.getElementById(id)).filter(Boolean);
  const visible = new Set();
  let current;
  const mark = () => {
    // The first section in document order that is in view.
    const section = sections.find((s) => visible.has(s));
    const link = section && entries.get(section.id);
    if (!link || link === current) return;
    current?.removeAttribute("aria-current");
    link.setAttribute("aria-current", "location");
    current = link;
    const box = link.getBoundingClientRect();
    const frame = toc.getBoundingClientRect();
    if (box.top < frame.top || box.bottom > frame.bottom) toc.scrollTop += box.top - frame.top - toc.clientHeight / 3;
  };
  const observer = new IntersectionObserver(
    (changes) => {
      for (const change of changes) {
        if (change.isIntersecting) visible.add(change.target);
        else visible.delete(change.target);
      }
      mark();
    },
    { rootMargin: "0px 0px -60% 0px" },
  );
  for (const section of sections) observer.observe(section);
})();
