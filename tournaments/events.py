"""What a change to a tournament tells the rest of the portal, once committed
(wallet.events.after_commit): lobby.live turns it into live updates."""

from django.dispatch import Signal

# tournament_id, created, and clock_only (only the level, a countdown or a pause
# changed: the lobby's row did not): what the lobby and Tournament Info show changed.
# player_id, when one player's entry changed it (sent before that player's own
# entry_changed and balances_changed of the same commit).
tournament_changed = Signal()
# tournament_id, player_id: a player's own entry changed (registration card, stack).
entry_changed = Signal()
# tournament_id, numbers: those tables' seats, stacks, button or hand changed.
tables_changed = Signal()
