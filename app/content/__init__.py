"""The game's content pack (``data/*.json``) and its validator.

The engine reads the pack through ``app.engine.content``; this package holds the
data itself, the checks that keep it sound (``validate``) and the
``imperial-glory content`` command (``cli``).
"""
