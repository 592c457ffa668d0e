// The copy buttons of a page served without the React runtime (lib/server/share-islands.ts):
// `data-copy-value` copies its value (a link), `data-copy-target` the text of the element with
// that id (a text post). "Copied!" for two seconds, announced by the label's aria-live.
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy-value], button[data-copy-target]") : null;
  if (!button) return;
  const link = button.getAttribute("data-copy-value");
  const text = link ?? document.getElementById(button.getAttribute("data-copy-target") ?? "")?.textContent ?? "";
  navigator.clipboard.writeText(text).then(
    () => {
      const label = button.querySelector("[aria-live]");
      if (!label) return;
      const before = label.textContent;
      label.textContent = "Copied!";
      setTimeout(() => {
        label.textContent = before;
      }, 2000);
    },
    () => {
      // No clipboard permission (http, old browser): select-and-copy through a prompt.
      if (link !== null) window.prompt("Copy this link:", link);
    },
  );
});

// Ran (the end-to-end tests read it to know the page's one script was not refused).
document.documentElement.dataset.islands = "ready";
