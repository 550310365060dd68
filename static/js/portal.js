// Times: the server renders them in the zone stored in the "tz" cookie (UTC until
// this script has stored the browser's own); rewrite them locally meanwhile.
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && document.cookie.indexOf("tz=" + encodeURIComponent(zone)) === -1) {
    document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax";
  }
  var lang = document.documentElement.lang || "en";

  function localise(root) {
    root.querySelectorAll("time[data-local]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when)) return;
      var withDay = el.textContent.trim().length > 5;
      var options = withDay
        ? { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hour12: false }
        : { hour: "2-digit", minute: "2-digit", hour12: false };
      el.textContent = new Intl.DateTimeFormat(lang, options).format(when);
    });
    root.querySelectorAll("[data-tz]").forEach(function (el) { el.textContent = zone; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localise(document);
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  });
  document.addEventListener("htmx:afterSwap", function (event) { localise(event.target); });
})();
