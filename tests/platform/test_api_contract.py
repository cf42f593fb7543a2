"""Schemathesis against the live OpenAPI of a real uvicorn (issue 12): for every API
operation, generated requests (valid and invalid) never get a 5xx, and every answer
fits the schema the API publishes (status codes, content types, bodies, headers).

The fuzzer acts as a logged-in player (cookie + CSRF header) and, half of the time,
on games that exist (one in its lobby, one running against a bot), so the deeper
code paths run, not only "404 no such game". Log-out operations go anonymous so the
session survives the run. Runtime: well under a minute on two cores."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import LiveServer, _servers

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
#: operations that would end the fuzzer's own session
ANONYMOUS = {"/api/logout", "/api/logout-everywhere"}


class Player:
    headers: dict[str, str] = {}
    games: list[int] = []


@pytest.fixture(scope="module")
def contract_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    workdir = tmp_path_factory.mktemp("contract")
    with _servers(workdir) as factory:
        server = factory(f"sqlite:///{workdir / 'contract.sqlite3'}")
        http = httpx.Client(base_url=server.url, timeout=30)
        r = http.post(
            "/api/signup",
            json={"username": f"fz{uuid.uuid4().hex[:8]}", "password": "correct horse 1"},
        )
        assert r.status_code == 200
        csrf = r.json()["csrf_token"]
        http.headers["X-CSRF-Token"] = csrf
        lobby = http.post(
            "/api/games",
            json={"scenario": "teaching", "seats": [{"kind": "human"}, {"kind": "human"}]},
        ).json()["id"]
        running = http.post("/api/games", json={"scenario": "teaching"}).json()["id"]
        assert http.post(f"/api/games/{running}/start").status_code == 200
        Player.headers = {
            "Cookie": f"ig_session={http.cookies.get('ig_session')}",
            "X-CSRF-Token": csrf,
        }
        Player.games = [running, lobby]
        http.close()
        yield server


@pytest.fixture(scope="module")
def api_schema(contract_server: LiveServer) -> Any:
    schema = schemathesis.openapi.from_url(f"{contract_server.url}/openapi.json")

    @schema.hook
    def map_path_parameters(context: Any, path_parameters: dict[str, Any] | None) -> Any:
        if not path_parameters:
            return path_parameters
        game_id = path_parameters.get("game_id")
        if isinstance(game_id, int) and game_id % 2 == 0:
            path_parameters["game_id"] = Player.games[(game_id // 2) % len(Player.games)]
        return path_parameters

    @schema.hook
    def map_body(context: Any, body: Any) -> Any:
        # Half the new games are ones the lobby accepts (the teaching scenario, valid
        # seats), so the stateful run has games to follow links into.
        operation = getattr(context, "operation", None)
        if getattr(operation, "path", None) != "/api/games" or not isinstance(body, dict):
            return body
        if body.get("public") is False:
            return body
        seats = [{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}]
        return {**body, "scenario": "teaching", "seats": seats, "options": {}, "power": None}

    return schema


@pytest.mark.slow
def test_the_api_keeps_its_published_contract(api_schema: Any) -> None:
    # One hypothesis run per operation and mode (schemathesis's own pytest plugin does
    # not run under pytest 9, so the operations are walked here).
    failures: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 30
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=15,
                deadline=None,
                derandomize=True,
                database=None,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate],
            )
            def run(case: Any) -> None:
                headers = {} if case.path in ANONYMOUS else dict(Player.headers)
                case.call_and_validate(headers=headers, checks=CHECKS, timeout=30)

            try:
                run()
            except Unsatisfiable:
                # Nothing to negate (an operation without parameters or body).
                assert mode == GenerationMode.NEGATIVE, operation.label
            except Exception as exc:  # collect them all, then fail once
                failures.append(f"{operation.label} [{mode}]: {str(exc)[:1500]}")
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)


@pytest.mark.slow
def test_stateful_sequences_follow_the_links_of_a_created_game(api_schema: Any) -> None:
    """Stateful: create a game, then follow the OpenAPI links of its answer (view, join,
    start, act, chat, undo, …) with the new id, in generated orders."""
    workflow = api_schema.as_state_machine()
    assert "StartGame" in str(api_schema.raw_schema["paths"]["/api/games"]["post"])

    class Player_(workflow):  # type: ignore[misc,valid-type]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            headers = {} if case.path in ANONYMOUS else dict(Player.headers)
            return {"headers": headers, "timeout": 30}

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS)

    Player_.run(
        settings=settings(
            max_examples=25,
            stateful_step_count=6,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_the_server_logged_no_error(contract_server: LiveServer) -> None:
    """Runs after the fuzzing above (same module): no traceback in the server's log."""
    log = contract_server.log()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]
