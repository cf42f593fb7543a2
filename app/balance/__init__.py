"""Balance measurement: seat-rotated bot games per scenario, and the designer's report.

``imperial-glory balance`` (``app.balance.cli``) plays the games in parallel,
``app.balance.games`` turns each into a small summary (winner, scores, petitions
and busts, length, the leader at the midpoint), ``app.balance.stats`` holds the
interval arithmetic and ``app.balance.report`` writes ``docs/balance.md`` with a
plot of the win rates.
"""
