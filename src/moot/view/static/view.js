// moot view: the only script its pages run (served by moot, no third party, no inline script).
// 1. Live pages: a page whose <body> has data-refresh="ms" fetches itself again every ms and swaps in each
//    element marked data-live (by id) from the fresh copy, until a copy no longer asks to be refreshed.
//    The copy is parsed with DOMParser, which runs no script, and comes from this server, which escapes
//    every text it holds.
// 2. Calls on demand: a <details data-src> fetches its prompt and reply the first time it is opened.
// 3. The filters of the Debates page apply as soon as a choice changes.
"use strict";

(function () {
  const parser = new DOMParser();

  function swapLive(fresh) {
    document.querySelectorAll("[data-live][id]").forEach(function (old) {
      const next = fresh.getElementById(old.id);
      if (next && next.innerHTML !== old.innerHTML) {
        // keep the <details> a person opened open
        const open = Array.from(old.querySelectorAll("details[open]")).map(function (d) { return d.dataset.src; });
        old.replaceWith(document.importNode(next, true));
        open.forEach(function (src) {
          const d = src && document.querySelector('details[data-src="' + CSS.escape(src) + '"]');
          if (d) { d.open = true; }
        });
      }
    });
    document.title = fresh.title;
  }

  function poll() {
    const every = parseInt(document.body.dataset.refresh || "0", 10);
    if (!every) { return; }
    window.setTimeout(function () {
      fetch(window.location.href, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (text) {
          const fresh = parser.parseFromString(text, "text/html");
          swapLive(fresh);
          document.body.dataset.refresh = fresh.body.dataset.refresh || "";
          document.body.dataset.updated = String(Date.now());
        })
        .catch(function () { /* the server may be restarting: try again next time */ })
        .then(poll);
    }, every);
  }

  function loadCall(event) {
    const d = event.target;
    if (!(d instanceof HTMLDetailsElement) || !d.open || !d.dataset.src || d.dataset.loaded) { return; }
    d.dataset.loaded = "1";
    fetch(d.dataset.src, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (text) {
        const part = parser.parseFromString(text, "text/html").querySelector(".call-body");
        if (part) { d.appendChild(document.importNode(part, true)); }
      })
      .catch(function () { delete d.dataset.loaded; });
  }

  function autoSubmit() {
    const form = document.getElementById("filters");
    if (!form) { return; }
    form.querySelectorAll("select, input[type=date]").forEach(function (el) {
      el.addEventListener("change", function () { form.requestSubmit(); });
    });
  }

  document.addEventListener("toggle", loadCall, true);
  document.addEventListener("DOMContentLoaded", function () {
    autoSubmit();
    poll();
  });
})();
