// A game's lobby page (templates/game_lobby.html); a module, so the page needs no inline script.
// Keep the table current while people join: reload when the game's version moves,
// go to the game page once it starts.
(function () {
  const card = document.getElementById("game-lobby");
  if (!card) return;
  const id = card.dataset.gameId;
  const version = Number(card.dataset.version);
  const code = new URLSearchParams(location.search).get("code");
  const url = "/api/games/" + id + (code ? "?code=" + encodeURIComponent(code) : "");
  async function check() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const game = await response.json();
        if (game.status === "active" || game.status === "finished") {
          location.assign("/games/" + id);
          return;
        }
        if (game.version !== version) {
          location.reload();
          return;
        }
      }
    } catch (e) { /* offline for a moment: try again */ }
    setTimeout(check, 3000);
  }
  setTimeout(check, 3000);
})();

// The invite link selects itself when clicked (was an inline onclick).
document.getElementById("invite-link")?.addEventListener("click", (e) => e.target.select());

// "Copy the link" (issue 40): the clipboard where the browser allows it, else the link
// selected for Ctrl+C, and a word that says which.
document.getElementById("copy-invite")?.addEventListener("click", async () => {
  const input = document.getElementById("invite-link");
  const done = document.getElementById("copy-done");
  if (!input) return;
  try {
    await navigator.clipboard.writeText(input.value);
    if (done) done.textContent = "Copied.";
  } catch (e) {
    input.focus();
    input.select();
    if (done) done.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
  }
});
