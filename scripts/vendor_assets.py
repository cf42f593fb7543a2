"""Copy the browser's third-party assets into static/ (no CDN at run time).

The game page needs two fonts and one small library:

- Cinzel (headings) and Inter (body), from the `@fontsource/*` npm packages (SIL OFL 1.1);
- svg-pan-zoom (BSD-2-Clause) for zooming and panning the map.

This script npm-installs the pinned versions into `build/npm` (git-ignored), then copies
only the files the page uses into `static/fonts/` and `static/vendor/`, with their licence
texts and a `VERSIONS.txt` note. The copied files are committed, so `make run` never needs
the network; run this script again only to upgrade.

    python scripts/vendor_assets.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "npm"
FONTS = ROOT / "static" / "fonts"
VENDOR = ROOT / "static" / "vendor"

PACKAGES = {
    "@fontsource/cinzel": "5.3.0",
    "@fontsource/inter": "5.3.0",
    "svg-pan-zoom": "3.6.2",
}

# (package, file inside the package, destination directory)
FONT_FILES = [
    ("@fontsource/cinzel", f"files/cinzel-latin-{w}-normal.woff2", FONTS) for w in (400, 700)
] + [
    ("@fontsource/inter", f"files/inter-{subset}-{w}-normal.woff2", FONTS)
    for subset in ("latin", "latin-ext")
    for w in (400, 600)
]
LIB_FILES = [("svg-pan-zoom", "dist/svg-pan-zoom.min.js", VENDOR)]


def npm_install() -> None:
    BUILD.mkdir(parents=True, exist_ok=True)
    manifest = BUILD / "package.json"
    if not manifest.exists():
        manifest.write_text(json.dumps({"name": "ig-vendor", "private": True}) + "\n")
    specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--save-exact", *specs],
        cwd=BUILD,
        check=True,
    )


def installed_version(package: str) -> str:
    meta = json.loads((BUILD / "node_modules" / package / "package.json").read_text())
    return str(meta["version"])


def copy_files() -> list[str]:
    notes = []
    for package, rel, dest in FONT_FILES + LIB_FILES:
        src = BUILD / "node_modules" / package / rel
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / src.name)
    for package in PACKAGES:
        pkg_dir = BUILD / "node_modules" / package
        meta = json.loads((pkg_dir / "package.json").read_text())
        dest = FONTS if package.startswith("@fontsource/") else VENDOR
        licence_src = next(
            (p for p in pkg_dir.iterdir() if p.name.upper().startswith("LICENSE")), None
        )
        short = package.replace("@fontsource/", "")
        if licence_src is not None:
            shutil.copy2(licence_src, dest / f"LICENSE-{short}.txt")
        notes.append(
            f"{package} {meta['version']} ({meta.get('license', '?')}) -> "
            f"{dest.relative_to(ROOT)}; licence: LICENSE-{short}.txt"
        )
    return notes


def main() -> int:
    npm_install()
    notes = copy_files()
    header = (
        "Third-party browser assets, copied from npm by scripts/vendor_assets.py.\n"
        "Do not edit by hand; re-run the script to upgrade.\n\n"
    )
    for dest in (FONTS, VENDOR):
        lines = [n for n in notes if f"-> {dest.relative_to(ROOT)}" in n]
        (dest / "VERSIONS.txt").write_text(header + "\n".join(lines) + "\n")
    print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
