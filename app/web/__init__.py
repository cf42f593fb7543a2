"""The web layer: FastAPI app factory, pages, JSON API (thin routers over app.services)."""
