# Imperial Glory: the app image (docker-compose.yml runs it next to PostgreSQL 15).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=8000

WORKDIR /app
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY alembic.ini ./
COPY templates ./templates
COPY static ./static
COPY docs ./docs
# Editable install: alembic's migrations/ and the templates are read from /app.
RUN pip install -e . && useradd --system --home /app imperial && chown -R imperial /app
USER imperial

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8000\")}/healthz', timeout=2)"
# Migrations on start, then the server.
CMD ["sh", "-c", "imperial-glory db upgrade && exec imperial-glory serve --host \"$HOST\" --port \"$PORT\""]
