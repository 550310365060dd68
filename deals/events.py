"""What a change to a negotiation tells the pages, once committed (deals.live)."""

from django.dispatch import Signal

# negotiation_id: its players' and the staff's pages show it again.
negotiation_changed = Signal()
