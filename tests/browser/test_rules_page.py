"""The rulebook page: docs/rules.md rendered with one anchor per rule number, so the
game log's links (/rules#r10.36) land on the rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.web.routes.play import RULES_PATH, render_rules


def test_headings_and_numbered_paragraphs_get_rule_anchors() -> None:
    html = render_rules(
        "## 10 Conquest\n\n"
        "### 10.3 Partial conquest\n\n"
        "**10.36** A partial conquest is completed when the population is matched.\n\n"
        "10.37. Loose rule text.\n\n"
        "- 10.38 A rule in a list item.\n"
        "- 3 talents are not a rule number.\n\n"
        "A paragraph that mentions 10.36 in the middle gets no anchor.\n"
    )
    assert '<h2 id="r10" class="rule-anchor">' in html
    assert '<h3 id="r10.3" class="rule-anchor">' in html
    assert '<p id="r10.36" class="rule-anchor">' in html
    assert 'id="r10.37"' in html
    assert '<li id="r10.38" class="rule-anchor">' in html
    assert 'id="r3"' not in html
    assert html.count('id="r10.36"') == 1


def test_raw_html_in_the_rulebook_is_escaped() -> None:
    html = render_rules("1.1 <script>alert(1)</script>\n")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_rules_that_begin_inside_a_paragraph_get_anchors_too() -> None:
    html = render_rules(
        "14.42 A diplomatic conquest keeps them. 14.43 An owner may slight them.\n"
        "16.232 Otherwise roll on the table, as in 11.3 and (16.231): rebellion.\n"
    )
    for number in ("14.42", "14.43", "16.232", "16.231"):
        assert f'id="r{number}"' in html, number
    assert 'id="r11.3"' not in html  # a reference, not a rule


def test_mentions_of_other_rules_link_to_them() -> None:
    html = render_rules(
        "10.3 **Partial** conquest (fortifications by 14.41).\n\n"
        "14.41 A full conquest.\n14.42 See 10.3; 3.5 talents is not a rule here.\n"
    )
    assert '<a href="#r14.41" class="rule-ref">14.41</a>' in html
    assert '<a href="#r10.3" class="rule-ref">10.3</a>' in html
    assert 'href="#r3.5"' not in html  # no such rule
    assert 'href="#r14.42"' not in html  # a rule's own number is not a link to itself
    assert html.count('href="#r10.3"') == 1


@pytest.mark.skipif(not RULES_PATH.exists(), reason="docs/rules.md is not written yet")
def test_every_rule_the_engine_cites_has_an_anchor() -> None:
    """Play a few hundred random legal moves and check each rule number in the log."""
    import random
    import re

    from app import engine

    html = render_rules(Path(RULES_PATH).read_text(encoding="utf-8"))
    anchors = set(re.findall(r'id="r([^"]+)"', html))
    cited: set[str] = set()
    state = engine.new_game("four_empires", ["rome", "parthia", "kushan", "han"], 11)
    rng = random.Random(11)
    for _ in range(400):
        prompts = engine.pending(state)
        if not prompts:
            break
        seat = prompts[0]["seat"]
        state, events = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        cited |= {str(e["rule"]) for e in events if e.get("rule")}
    assert cited, "the engine cited no rule"
    assert sorted(cited - anchors) == []
