"""Pages of play: the game page (``GET /games/{id}`` once a game has started) and the
rulebook (``GET /rules``, docs/rules.md rendered with an anchor per rule number).

The game page is a shell: the browser draws everything from the seat view
(``/api/games/{id}/view`` and the websocket). This module only adds the static
data the page needs to name things (areas, powers, rulers, cards), read once from
the content pack.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from app.engine.content import content
from app.services import catchup, lobby, replays
from app.services.errors import Forbidden, ServiceError
from app.web.deps import DB, Login
from app.web.limits import GameId, InviteCode
from app.web.templating import render

RULES_PATH = Path(__file__).resolve().parents[3] / "docs" / "rules.md"

# "10.36", "10.36a", "**10.36**", "10.36." at the start of a heading, paragraph or list item.
RULE_NUMBER = re.compile(r"^\s*(?:\*\*|__)?\[?(\d{1,2}(?:\.\d{1,3})*[a-z]?)\b[.:)]?")


# --------------------------------------------------------------------------- the rulebook


def _rule_id(inline: Token) -> str | None:
    m = RULE_NUMBER.match(inline.content)
    if not m:
        return None
    number = m.group(1)
    # a bare integer only counts in a heading ("## 10 Conquest"), not "3 talents ..."
    return number


def _anchor_rules(md: MarkdownIt) -> None:
    """A core rule: give each heading, paragraph or list item that opens with a rule
    number the id ``r<number>`` (``id="r10.36"``), so the log can link to it."""

    def rule(state: Any) -> None:
        tokens: list[Token] = state.tokens
        seen: set[str] = set()
        for i, tok in enumerate(tokens[:-1]):
            if tok.type not in ("heading_open", "paragraph_open"):
                continue
            number = _rule_id(tokens[i + 1]) if tokens[i + 1].type == "inline" else None
            if number is None:
                continue
            if tok.type == "paragraph_open" and "." not in number:
                continue
            anchor = f"r{number}"
            if anchor in seen:
                continue
            seen.add(anchor)
            target = tok
            # a paragraph inside a list item: anchor the item, so the whole rule is targeted
            if tok.type == "paragraph_open" and i > 0 and tokens[i - 1].type == "list_item_open":
                target = tokens[i - 1]
            target.attrSet("id", anchor)
            target.attrSet("class", "rule-anchor")
        # rules that begin mid-paragraph ("… 14.43 An owner may …", "demanded (16.231): …")
        for tok in tokens:
            if tok.type == "inline" and tok.children:
                tok.children = _inline_anchors(tok.children, seen)
        # then every mention of a rule that has an anchor becomes a link to it
        for tok in tokens:
            if tok.type == "inline" and tok.children:
                tok.children = _cross_links(tok.children, seen)

    md.core.ruler.push("rule_anchors", rule)


RULE_MENTION = re.compile(r"(?<![\d.])(\d{1,2}\.\d{1,3}[a-z]?)(?![\d])")


def _cross_links(children: list[Token], anchors: set[str]) -> list[Token]:
    """ "… by 14.41" -> a link to #r14.41; a rule's own number (where it is defined:
    at the start of its paragraph or right after its anchor) stays plain text."""
    out: list[Token] = []
    in_link = False
    for index, child in enumerate(children):
        if child.type in ("link_open", "link_close"):
            in_link = child.type == "link_open"
        if child.type != "text" or in_link:
            out.append(child)
            continue
        text, last = child.content, 0
        defines = index == 0 or (
            children[index - 1].type == "html_inline"
            and "rule-anchor" in children[index - 1].content
        )
        for m in RULE_MENTION.finditer(text):
            if f"r{m.group(1)}" not in anchors or (defines and m.start() <= 1):
                continue
            if m.start() > last:
                out.append(_text(text[last : m.start()]))
            link = Token("link_open", "a", 1)
            link.attrSet("href", f"#r{m.group(1)}")
            link.attrSet("class", "rule-ref")
            close = Token("link_close", "a", -1)
            out += [link, _text(m.group(1)), close]
            last = m.end()
        out.append(_text(text[last:]) if last else child)
    return out


# a rule number opening a sentence inside a paragraph, or defined in brackets before a colon
INLINE_RULE = re.compile(
    r"(?:(?<=[.;:!?] )|(?<=\n)|^)(\d{1,2}\.\d{1,3}[a-z]?)(?= (?:\*\*)?[A-Z(])"
    r"|\((\d{1,2}\.\d{1,3}[a-z]?)\):"
)


def _inline_anchors(children: list[Token], seen: set[str]) -> list[Token]:
    out: list[Token] = []
    for child in children:
        if child.type != "text":
            out.append(child)
            continue
        text, last = child.content, 0
        for m in INLINE_RULE.finditer(text):
            anchor = f"r{m.group(1) or m.group(2)}"
            if anchor in seen:
                continue
            seen.add(anchor)
            if m.start() > last:
                out.append(_text(text[last : m.start()]))
            span = Token("html_inline", "", 0)
            span.content = f'<span id="{anchor}" class="rule-anchor"></span>'
            out.append(span)
            last = m.start()
        out.append(_text(text[last:]) if last else child)
    return out


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": True})
    md.enable("table")
    _anchor_rules(md)
    return md


def render_rules(text: str) -> str:
    """Markdown -> HTML with rule anchors; raw HTML in the source is escaped."""
    return _markdown().render(text)


def _toc(text: str) -> list[dict[str, str]]:
    """The chapters (level-2 headings) for the side contents list."""
    out = []
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            m = RULE_NUMBER.match(title)
            out.append({"title": title, "anchor": f"r{m.group(1)}" if m else ""})
    return out


@lru_cache(maxsize=4)
def _rules_cached(mtime: float, path: str) -> tuple[str, list[dict[str, str]]]:
    text = Path(path).read_text(encoding="utf-8")
    return render_rules(text), _toc(text)


def rules_html(path: Path = RULES_PATH) -> tuple[str, list[dict[str, str]]] | None:
    """The rendered rulebook and its contents, cached until the file changes."""
    if not path.exists():
        return None
    return _rules_cached(path.stat().st_mtime, str(path))


# --------------------------------------------------------------------------- page data


def _names(tree: dict[str, Any], inner: str) -> dict[str, str]:
    """``{family: {name, <inner>: {id: name | {name}}}}`` -> ``{id: name}``."""
    out: dict[str, str] = {}
    for family in (tree or {}).values():
        for key, value in (family.get(inner) or {}).items():
            out[key] = value if isinstance(value, str) else str(value.get("name", key))
    return out


def ability_text(ability: dict[str, Any] | None) -> str | None:
    """A notable's ability in words (6.4), for the card faces; the engine applies it."""
    if not ability:
        return None
    op = str(ability.get("op", ""))
    n = int(ability.get("amount", 1) or 1)
    what = str(ability.get("endeavour") or "endeavour").replace("_", " ")
    texts = {
        "rating_bonus": f"+{n} to the rating of every {what} (6.4)",
        "free_petition": "the first petition of each year is free (5.5)",
        "ignore_sea_cost": "sea crossings cost nothing (7)",
        "tax_bonus": f"+{n} talents when your taxation opens (16.18)",
        "popularity_per_turn": f"+{n} popularity each turn",
        "influence_per_turn": f"+{n} influence each turn",
        "defense_bonus": f"+{n} to your defense (13)",
        "parley_votes": f"+{n} votes in parleys (20)",
        "rebellion_modifier": f"{n:+d} to rebellion checks in your areas (17.28)",
        "cheaper_market": f"notables in the Court cost you {n} less (6.5)",
        "extra_year": "a sixth year in every round (4.2)",
        "burden_shield": "cancels the first strike of each year (5.6)",
        "counter_plus": f"when it acts, draw {1 + n} result counters and keep the best (6.4)",
    }
    return texts.get(op, op.replace("_", " "))


@lru_cache(maxsize=1)
def _content_meta() -> dict[str, Any]:
    pack = content()
    areas = {
        a["id"]: {
            k: a.get(k)
            for k in (
                "name",
                "region",
                "population",
                "social",
                "language",
                "religion",
                "terrain",
                "places",
            )
        }
        for a in pack.get("areas", []) or []
    }
    seas = {s["id"]: s.get("name", s["id"]) for s in pack.get("seas", []) or []}
    cards: dict[str, dict[str, Any]] = {}
    for type_id, adv in (pack.get("advisors", {}) or {}).items():
        cards[type_id] = {
            "kind": "advisor",
            "name": adv.get("name", type_id),
            "stature": adv.get("stature"),
            "endeavours": adv.get("endeavours", []),
            "text": adv.get("text"),
        }
    for n in pack.get("notables", []) or []:
        cards[n["id"]] = {
            "kind": "notable",
            "name": n.get("name"),
            "type": n.get("type"),
            "bonus": n.get("bonus"),
            "cost": n.get("cost"),
            "note": n.get("note"),
            "ability": ability_text(n.get("ability")),
        }
    for kind in ("burdens", "fate", "innovations", "buildings"):
        for c in pack.get(kind, []) or []:
            cards.setdefault(
                c["id"], {"kind": kind.rstrip("s"), "name": c.get("name"), "text": c.get("text")}
            )
    rulers = {r["id"]: r.get("name", r["id"]) for r in pack.get("rulers", []) or []}
    advisor_names = {k: v["name"] for k, v in cards.items() if v["kind"] == "advisor"}
    return {
        "areas": areas,
        "seas": seas,
        "cards": cards,
        "rulers": rulers,
        "advisorNames": advisor_names,
        "languages": _names(pack.get("languages", {}), "languages"),
        "religions": _names(pack.get("religions", {}), "religions"),
    }


def _is_light(colour: str | None) -> bool:
    """A light colour takes dark pattern marks (and dark text) on the page."""
    if not colour or not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        return False
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6


def scenario_powers(scenario_id: str) -> dict[str, dict[str, Any]]:
    for s in content().get("scenarios", []) or []:
        if s.get("id") == scenario_id:
            return {
                p["id"]: {
                    "name": p.get("name", p["id"]),
                    "colour": p.get("colour"),
                    "pattern": p.get("pattern"),
                    "light": _is_light(p.get("colour")),
                }
                for p in s.get("powers", [])
            }
    return {}


def page_meta(
    game_id: int,
    scenario_id: str,
    title: str,
    seat_users: dict[int, str],
    seated: list[str] | None = None,
) -> dict[str, Any]:
    """Everything the game page needs besides the seat view (static, shared by all seats).
    ``seated``: the powers in play, in seat order (the legend lists only these; a power
    no one plays has no areas, 2.1)."""
    powers = scenario_powers(scenario_id)
    if seated:
        powers = {p: powers[p] for p in seated if p in powers}
    meta = dict(_content_meta())
    meta.update(
        {
            "game_id": game_id,
            "title": title,
            "scenario": scenario_id,
            "powers": powers,
            "seat_users": {str(k): v for k, v in seat_users.items()},
            "map_url": "/static/map/map.svg",
        }
    )
    return meta


# --------------------------------------------------------------------------- routes

router = APIRouter(tags=["pages"], include_in_schema=False)  # HTML, not the API


@router.get("/rules", response_class=HTMLResponse, summary="The rulebook, one anchor per rule")
def rules_page(request: Request, login: Login) -> HTMLResponse:
    rendered = rules_html()
    toc: list[dict[str, str]]
    if rendered is None:
        body, toc = "<p>The rulebook is not installed (docs/rules.md is missing).</p>", []
    else:
        body, toc = rendered
    return render(request, "rules.html", {"rules_body": Markup(body), "toc": toc}, login=login)


@router.get("/games/{game_id}", response_class=HTMLResponse, summary="The game page")
def game_page(
    game_id: GameId, request: Request, db: DB, login: Login, code: InviteCode = None
) -> Response:
    return _game_page(game_id, request, db, login, code, replay=False)


@router.get(
    "/games/{game_id}/replay",
    response_class=HTMLResponse,
    summary="A finished game, step by step, with nothing hidden",
)
def replay_page(game_id: GameId, request: Request, db: DB, login: Login) -> Response:
    return _game_page(game_id, request, db, login, None, replay=True)


def _game_page(
    game_id: int, request: Request, db: DB, login: Login, code: str | None, replay: bool
) -> Response:
    """The game page; in replay mode (a finished game only) it steps through the log
    instead of going live (static/js/game/replay.js)."""
    user_id = login.user.id if login else None
    try:
        game = lobby.get_game(db, game_id)
        if not lobby.can_see(db, game, user_id, code):
            raise Forbidden("This game is private: ask its players for the invite link.")
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)
    if game.state is None:
        # not started: the platform's lobby page for this game
        return RedirectResponse(f"/games/{game_id}/lobby", status_code=303)
    if replay and game.status not in replays.OVER:
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    summary = lobby.game_summary(game, user_id)
    seat_users = {
        s.index: (s.user.username if s.user else f"{s.bot_level} bot") for s in game.seats
    }
    title = str(summary.get("scenario_name") or game.scenario)
    seated = [s.power for s in sorted(game.seats, key=lambda s: s.index) if s.power]
    meta = page_meta(game.id, game.scenario, title, seat_users, seated)
    if replay:
        mine = lobby.seat_of(game, user_id)
        meta["replay"] = {
            "steps": game.last_action,
            "seat": mine.index if mine else None,
            "seats": [
                {"index": s.index, "power": s.power, "name": seat_users[s.index]}
                for s in sorted(game.seats, key=lambda s: s.index)
            ],
        }
    elif user_id is not None:
        # what happened since her last look ("while you were away"); the mark moves on
        meta["catchup"] = catchup.on_page_load(db, game, user_id)
        db.commit()
    return render(
        request,
        "game.html",
        {"title": title, "meta": meta, "game": summary, "replay": replay},
        login=login,
    )
