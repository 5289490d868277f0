// The review screen's one script: Enter in a field sends a PATCH with If-Match (the version
// the page shows) and reloads the page with the checks run again; Escape puts the value back;
// a click on a box on the page goes to its field; "n" opens the next invoice of the queue.
// Without it every form still posts and the page still works.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const title = document.getElementById("invoice-title");
  const tokenTag = document.querySelector('meta[name="csrf-token"]');
  const message = document.getElementById("script-message");

  function say(text) {
    message.textContent = text;
    message.hidden = false;
  }

  document.querySelectorAll("form.field-form").forEach((form) => {
    const input = form.querySelector('input[name="value"]');
    const name = form.querySelector('input[name="field"]').value;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = input.value.trim();
      const headers = {"Content-Type": "application/json",
                       "If-Match": '"' + title.dataset.version + '"'};
      if (tokenTag) headers["X-CSRF-Token"] = tokenTag.content;
      input.disabled = true;
      const answer = await fetch(form.action, {
        method: "PATCH", headers, credentials: "same-origin",
        body: JSON.stringify({fields: {[name]: value === "" ? null : value}}),
      });
      if (answer.ok) {
        sessionStorage.setItem("ledgerline-focus", name);
        window.location.reload();
        return;
      }
      input.disabled = false;
      const problem = await answer.json().catch(() => ({}));
      if (answer.status === 412) {
        say("Someone changed this invoice meanwhile; showing it as it is now.");
        setTimeout(() => window.location.reload(), 1500);
      } else {
        say(problem.detail || problem.title || "The correction was not saved.");
        input.focus();
      }
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        input.value = input.defaultValue;
        input.blur();
      }
    });
    input.addEventListener("focus", () => highlight(name, true));
    input.addEventListener("blur", () => highlight(name, false));
  });

  function highlight(name, on) {
    document.querySelectorAll('rect.box[data-field="' + name + '"]')
      .forEach((box) => box.classList.toggle("active", on));
  }

  document.querySelectorAll("rect.box").forEach((box) => {
    box.addEventListener("click", () => {
      const input = document.getElementById("field-" + box.dataset.field);
      if (input && input.focus) {
        input.focus();
        if (input.select) input.select();
      }
    });
  });

  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLInputElement;
    if (!typing && event.key === "n" && !event.ctrlKey && !event.metaKey && !event.altKey) {
      const next = document.getElementById("next-invoice");
      if (next) window.location.assign(next.href);
    }
  });

  const again = sessionStorage.getItem("ledgerline-focus");
  if (again) {
    sessionStorage.removeItem("ledgerline-focus");
    const input = document.getElementById("field-" + again);
    if (input && input.focus) input.focus();
  }
});
