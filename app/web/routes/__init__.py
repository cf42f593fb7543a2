"""Routers, one module per concern."""
