// Accord's pages work without this file. With it: a link's code moves from the address bar
// (where the part after # never reaches the server) into the form, and off the address bar;
// an error summary takes the focus, so that a screen reader says what went wrong.
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
  });
})();
