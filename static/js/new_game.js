// The New game form (templates/new_game.html); a module, so the page needs no inline script.
// Offer only the chosen scenario's powers, and only as many seats as it allows.
(function () {
  const scenario = document.getElementById("scenario");
  const power = document.getElementById("power");
  if (!scenario || !power) return;
  function sync() {
    const chosen = scenario.selectedOptions[0];
    for (const option of power.options) {
      if (!option.dataset.scenario) continue;
      option.hidden = option.disabled = option.dataset.scenario !== scenario.value;
    }
    if (power.selectedOptions[0] && power.selectedOptions[0].disabled) power.value = "";
    const max = Number(chosen.dataset.max || 6);
    document.querySelectorAll("select[name^=seat_]").forEach(function (select) {
      const index = Number(select.name.slice(5));
      const row = select.closest("label");
      row.hidden = index >= max;
      if (index >= max) select.value = "none";
    });
  }
  scenario.addEventListener("change", sync);
  sync();
})();
