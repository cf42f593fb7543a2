"""Imperial Glory: a multiplayer strategy board game of ancient empires."""

__version__ = "0.1.0"
