// The admin shows and reads times in the zone of the "tz" cookie (lobby.middleware),
// as the site's pages do: a staff member who comes to the admin first stores the
// browser's zone here, and sees the page again in it before filling in a time.
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone || document.cookie.indexOf("tz=" + encodeURIComponent(zone)) !== -1) return;
  document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax";
  location.replace(location.href);
})();
