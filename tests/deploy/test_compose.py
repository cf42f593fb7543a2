"""docker-compose.yml runs the tested nginx site in front of its two app replicas.

Docker may not run where the tests do, so this reads the file and checks that its
parts fit together: nginx mounts deploy/nginx.conf (the site tests/deploy runs) where
the nginx image includes sites, and the upstreams file where the site's relative
include finds it; that file names exactly the app replicas and their port; every
replica trusts nginx's address, and nginx's alone, for X-Forwarded-For; migrations run
once before the replicas; PostgreSQL has a health check the others wait for.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

yaml = pytest.importorskip("yaml")


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """container path -> host path (relative to the repository) of its bind mounts."""
    found = {}
    for volume in service.get("volumes", []):
        host, container, *_ = volume.split(":")
        found[container] = host
    return found


def test_nginx_runs_the_tested_site_in_front_of_the_replicas() -> None:
    services = compose()["services"]
    nginx = services["nginx"]
    files = mounts(nginx)
    assert files["/etc/nginx/conf.d/default.conf"] == "./deploy/nginx.conf"
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    include = re.search(r"^\s*include (\S+);", site, re.M)
    assert include is not None and not include.group(1).startswith("/")
    upstreams_file = files[f"/etc/nginx/{include.group(1)}"]  # the image's prefix
    upstreams = re.findall(r"^server (\S+):(\d+);", (ROOT / upstreams_file).read_text(), re.M)
    apps = {name: s for name, s in services.items() if "INSTANCE_NAME" in s.get("environment", {})}
    assert sorted(apps) == ["app1", "app2"]
    assert sorted(upstreams) == sorted((name, s["environment"]["PORT"]) for name, s in apps.items())
    assert len({s["environment"]["INSTANCE_NAME"] for s in apps.values()}) == 2
    assert nginx["ports"] == ["8000:80"] and all("ports" not in s for s in apps.values())
    for name in apps:
        assert nginx["depends_on"][name]["condition"] == "service_healthy"


def test_the_replicas_trust_nginx_alone_and_share_one_migrated_database() -> None:
    data = compose()
    services = data["services"]
    nginx_address = services["nginx"]["networks"]["site"]["ipv4_address"]
    subnet = ipaddress.ip_network(data["networks"]["site"]["ipam"]["config"][0]["subnet"])
    assert ipaddress.ip_address(nginx_address) in subnet
    apps = [s for s in services.values() if "INSTANCE_NAME" in s.get("environment", {})]
    for app in apps:
        env = app["environment"]
        assert env["TRUSTED_PROXIES"] == nginx_address
        assert env["DATABASE_URL"] == services["migrate"]["environment"]["DATABASE_URL"]
        assert "db upgrade" not in " ".join(app["command"])  # migrate did it, once
        assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["command"] == ["imperial-glory", "db", "upgrade"]
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
