"""A four_empires state at turn 4's diplomatic phase with every kind of politics at once
(docs/rules.md 3, 20, 21), for the view tests and the page's politics test:

- Rome (0) is hegemon with Satavahana (5) its junior partner (3.5);
- Han (3) is hegemon with no partner yet;
- Rome is at war with Parthia (1), so Satavahana is too (3.55);
- Han and Parthia made peace on turn 1 (a treaty three turns old, 3.22);
- Kushan (2) has lost every area: in exile (21.1), under asylum at Han's court (21.2);
- the Xiongnu (4) are accursed (20.4: they vote in no parley).
"""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine.core import rel_key

POWERS = ["rome", "parthia", "kushan", "han", "xiongnu", "satavahana"]
ROME, PARTHIA, KUSHAN, HAN, XIONGNU, SATAVAHANA = range(6)


def politics_state(to_move: int = ROME) -> dict[str, Any]:
    state = engine.new_game("four_empires", POWERS, 3)
    state["turn"] = 4
    rels = state["relations"]
    rels["hegemons"] = [ROME, HAN]
    rels["coalitions"] = {str(ROME): [SATAVAHANA]}
    rels["pairs"][rel_key(ROME, SATAVAHANA)] = {"status": "peace", "since": 2}
    rels["pairs"][rel_key(ROME, PARTHIA)] = {"status": "war", "since": 3}
    rels["pairs"][rel_key(HAN, PARTHIA)] = {"status": "peace", "since": 1}
    kushan = state["players"][KUSHAN]
    for area in state["areas"].values():
        if area["owner"] == KUSHAN:
            area["owner"] = None
    kushan.update(court=None, exiled=True, asylum=HAN)
    state["players"][XIONGNU]["accursed"] = True
    state["diplo"]["pos"] = to_move
    return state
