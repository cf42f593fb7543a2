"""Use cases (accounts, lobby, play, deadlines, chat). One call = one unit of work
inside the caller's transaction: services flush but never commit."""
