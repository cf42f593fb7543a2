# Imperial Glory — the two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1

.PHONY: run test lint bench clean install install-dev chromium nginx

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

## run: set up, migrate the SQLite database and serve on http://$(HOST):$(PORT);
## with no SMTP_HOST its mail goes to the sink data/mail, listed at /dev/mail (to each
## signed-in person, her own; MAIL_SINK_SHOW_ALL=true lists all)
MAIL_SINK ?= data/mail
run: install
	$(BIN)/imperial-glory db upgrade
	MAIL_SINK=$(MAIL_SINK) $(BIN)/imperial-glory serve --host $(HOST) --port $(PORT)

## chromium: the browser tests drive Debian's Chromium; install it when missing and we are root
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: install Debian's chromium package (browser tests will be skipped)"; fi; }

## nginx: the deploy tests run Debian's nginx from deploy/nginx.conf; install it when missing and we are root
nginx:
	@{ command -v nginx || test -x /usr/sbin/nginx; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	  else echo "nginx is missing: install Debian's nginx package (deploy tests will be skipped)"; fi; }

## test: install dev dependencies and run lint, type checks and the whole suite (PostgreSQL included) on every core
test: install-dev chromium nginx
	$(BIN)/ruff check app tests bench scripts
	$(BIN)/ruff format --check app tests bench scripts
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=40

lint: install-dev
	$(BIN)/ruff check app tests bench scripts
	$(BIN)/ruff format --check app tests bench scripts
	$(BIN)/mypy

bench: install-dev
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/ws_fanout.py --games 50

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
