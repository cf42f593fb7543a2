// The sign-up form's hidden time zone (issue 40): the browser's own IANA zone, so that the
// times in her mails ("Decide before 15:16 CET") are hers from the start. She can change
// it on /account; a browser that reports none leaves it empty (UTC).
(function () {
  const field = document.querySelector("input[name=time_zone]");
  if (!field || field.value) return;
  try {
    field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) { /* an old browser: UTC */ }
})();
