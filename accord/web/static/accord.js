// Accord's pages work without this file. With it: a link's code moves from the address bar
// (where the part after # never reaches the server) into the form, and off the address bar;
// an error summary takes the focus, so that a screen reader says what went wrong; and when a
// live region of the page is brought up to date, a polite announcement says so.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var code = document.getElementById("field-code");
    if (code && window.location.hash.length > 1) {
      code.value = decodeURIComponent(window.location.hash.slice(1));
      window.history.replaceState(null, "", window.location.pathname);
    }
    var summary = document.querySelector(".error-summary");
    if (summary) {
      summary.focus();
    }
    var announce = document.getElementById("announce");
    if (announce) {
      document.body.addEventListener("htmx:sseMessage", function () {
        announce.textContent =
          announce.dataset.changed ||
          "The room changed: refresh the page for the moves that answer it.";
      });
    }
  });
})();
