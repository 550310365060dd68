"""Use cases that change tournaments, a module each; every one owns its transaction
and row locks (see each module's docstring for its lock order)."""
