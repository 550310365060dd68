"""Every refusal of the tournament services, by code: the code is what the API
answers and tests match, the message is for a person (translated when raised)."""

from collections.abc import Mapping

from django.utils.translation import gettext_lazy

from tournaments.templatetags.chips import chips as chips_text


class TournamentError(Exception):
    """A request the rules refuse; the message is for a person."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


REFUSALS = {
    # Registration, unregistration, rebuys and the add-on (rules 8, 9, 10).
    "cancelled": gettext_lazy("This tournament has been cancelled."),
    "closed": gettext_lazy("Registration for this tournament has closed."),
    "not_open_yet": gettext_lazy("Registration for this tournament is not open yet."),
    "full": gettext_lazy("The tournament is full."),
    "already_registered": gettext_lazy("You are already registered in this tournament."),
    "not_registered": gettext_lazy("You are not registered in this tournament."),
    "duplicate_request": gettext_lazy("This request key was already used for another purchase."),
    "no_unregistration": gettext_lazy("This tournament allows no unregistration."),
    "unregistration_closed": gettext_lazy("The deadline for unregistering has passed."),
    "no_rebuys": gettext_lazy("This tournament has no rebuys."),
    "rebuys_not_open": gettext_lazy("Rebuys open when the tournament starts."),
    "rebuy_period_over": gettext_lazy("The rebuy period is over."),
    "rebuy_limit_reached": gettext_lazy("You have used every rebuy this tournament allows."),
    "no_addon": gettext_lazy("This tournament has no add-on."),
    "addon_taken": gettext_lazy("You have already taken the add-on."),
    "addon_not_open": gettext_lazy("The add-on opens in the last rebuy level."),
    "addon_over": gettext_lazy("The add-on period is over."),
    "ticket_required": gettext_lazy("This tournament is entered with a ticket."),
    "no_ticket": gettext_lazy("You have no ticket for this tournament."),
    "form_not_accepted": gettext_lazy("This tournament cannot be paid that way."),
    "insufficient_funds": gettext_lazy("You do not have enough money for this in the tournament's currency."),
    "eliminated": gettext_lazy("You are out of this tournament."),
    "terms_changed": gettext_lazy(
        "The tournament's buy-in, start or stack changed while you registered: nothing was paid. "
        "Check the new terms and register again."
    ),
    # Staff actions: every one needs a reason players and support can read (rule 1).
    "reason_required": gettext_lazy("Give a reason: players and support will read it."),
    "reason_too_long": gettext_lazy("A reason has at most %(length)s characters."),
    "unwritable_text": gettext_lazy(
        "The text holds a character that cannot be stored (a NUL or a broken character): remove it and send it again."
    ),
    # The clock (rules 2, 17).
    "not_running": gettext_lazy("Only a tournament in play can be paused."),
    "not_paused": gettext_lazy("The tournament is not paused."),
    "already_paused": gettext_lazy("The tournament is already paused."),
    # Cancellation and postponement (rule 22).
    "already_cancelled": gettext_lazy("This tournament has already been cancelled."),
    "finished": gettext_lazy("This tournament has finished; it can no longer be cancelled or postponed."),
    "unknown_mode": gettext_lazy("Choose how to cancel: roll back or roll forward."),
    "roll_forward_before_start": gettext_lazy(
        "Roll forward shares out a tournament in play; this one has not started. "
        "Cancel it with a rollback, which refunds everything."
    ),
    "nobody_left": gettext_lazy("No player is left in this tournament to roll the prize pool forward to."),
    "books": gettext_lazy("The prize pool does not hold what the entries paid in; nothing was changed."),
    "started": gettext_lazy("This tournament has already started; it can be cancelled but not postponed."),
    "start_in_past": gettext_lazy("The new start must be in the future."),
    "start_not_later": gettext_lazy("A postponement moves the start later than it is now."),
    "after_target": gettext_lazy("A satellite must start before its target event."),
    # Satellites (rule 10).
    "not_a_satellite": gettext_lazy("This tournament is not a satellite: it has no target event."),
    "not_seats": gettext_lazy("This satellite pays prizes, not seats: its prize structure is not “Satellite seats”."),
    "free_target": gettext_lazy("The target event has no entry price, so there is no seat to award."),
    "not_started": gettext_lazy("This satellite has not started yet."),
    "not_entrants": gettext_lazy("Every finisher must be a different entrant of this satellite."),
    "too_few_finishers": gettext_lazy("The satellite pays %(places)s places; name at least that many finishers."),
    # The floor (rules 11-16).
    "not_in_play": gettext_lazy("The tournament is not in play."),
    "bad_result": gettext_lazy("That hand result cannot be taken: %(reason)s"),
    "no_such_table": gettext_lazy("This tournament has no such table in play."),
    "no_hand_to_roll_back": gettext_lazy("No hand is in play there: nothing to roll back."),
    "stale_hand": gettext_lazy("That hand has already been reported; the table is on another hand."),
    # Hands at the tables (rules 6, 18).
    "no_hand": gettext_lazy("There is no hand in play at this table."),
    "not_in_hand": gettext_lazy("You are not in this hand."),
    "illegal_action": gettext_lazy("%(reason)s"),
    "hand_moved_on": gettext_lazy("The hand has moved on since you chose: look at the table again."),
    "not_seated": gettext_lazy("You have no seat in this tournament."),
    # Table chat (rules 19, 21).
    "chat_empty": gettext_lazy("Write a message first."),
    "chat_too_long": gettext_lazy("A message has at most %(length)s characters."),
    "chat_not_seated": gettext_lazy("Only the players seated at this table can write in its chat."),
    "chat_muted": gettext_lazy("Support has muted you in the chat until %(until)s: %(reason)s"),
    "chat_too_fast": gettext_lazy("You are writing too fast: wait a few seconds."),
    "mute_minutes": gettext_lazy("Mute for 1 minute to 30 days."),
    # Seat transfers (rule 21).
    "transfer_staff_only": gettext_lazy("Only staff may move a seat to another account (rule 21)."),
    "transfer_same": gettext_lazy("A seat can only move to another account."),
    "no_such_tournament": gettext_lazy("There is no tournament #%(tournament)s."),
    "transfer_no_seat": gettext_lazy("That player has no seat in play in this tournament."),
    "transfer_target_entered": gettext_lazy(
        "That account is entered in this tournament already: one entry per player (rule 9)."
    ),
    # Integrity reviews (rule 20).
    "flag_decision": gettext_lazy("Choose a decision: clear or confirm."),
    "flag_not_open": gettext_lazy("This flag is no longer open: staff have decided on it."),
    "withhold_not_flagged": gettext_lazy("Only the prize of one of the flagged players can be withheld."),
    "withhold_no_entry": gettext_lazy("That player has no entry in the flag's tournament."),
    "withhold_paid": gettext_lazy("That prize has already been paid (or decided on): it can no longer be withheld."),
    "not_withheld": gettext_lazy("That prize is not withheld: it has been paid or confiscated already."),
    "prize_not_due": gettext_lazy("The prize is not due yet: the player has not finished the tournament."),
    # Deals (rule 23).
    "deals_disallowed": gettext_lazy("Deals are not allowed in this tournament (see the lobby)."),
    "not_real_money": gettext_lazy("Deals are only made in real-money tournaments (rule 23.8)."),
    "heads_up": gettext_lazy("No deals in a multi-table heads-up tournament before its final table (rule 23.9)."),
    "not_final_table": gettext_lazy("Only the players at the final table can make a deal (rule 23.7)."),
    "payouts_provisional": gettext_lazy(
        "A deal needs the final payouts: registration or the rebuy period is still open."
    ),
    "not_at_table": gettext_lazy("Only a player still in the tournament can ask for or answer a deal."),
    "already_negotiating": gettext_lazy("A deal is already being negotiated in this tournament."),
    "already_dealt": gettext_lazy("A deal has already been made in this tournament."),
    "negotiation_closed": gettext_lazy("This negotiation is over."),
    "not_all_agreed": gettext_lazy(
        "Every player must say they want to negotiate before the clock is stopped (rule 23.3)."
    ),
    "not_claimed": gettext_lazy("Claim the ticket first: the staff member who claimed it mediates."),
    "claimed_by_other": gettext_lazy("Another staff member has claimed this ticket."),
    "clock_running": gettext_lazy("Stop the clock first: proposals come once every player wants to negotiate."),
    "clock": gettext_lazy("The clock cannot be stopped now: %(reason)s"),
    "bad_amounts": gettext_lazy("That proposal does not add up: %(reason)s."),
    "amounts_short": gettext_lazy(
        "The amounts add up to %(proposed)s, %(gap)s short of the %(to_share)s the deal shares "
        "(the prizes, %(prizes)s, less %(play_for)s left to play for)."
    ),
    "amounts_too_much": gettext_lazy(
        "The amounts add up to %(proposed)s, %(gap)s more than the %(to_share)s the deal shares "
        "(the prizes, %(prizes)s, less %(play_for)s left to play for)."
    ),
    "not_open": gettext_lazy("This proposal is no longer open."),
    "players_changed": gettext_lazy(
        "A player has been eliminated since the negotiation began; a deal must include every remaining player."
    ),
}


# The hand engine's refusals (tournaments.rules.hands.HandError's codes), for the
# player to act; amounts are chips.
HAND_REFUSALS = {
    "unknown_action": gettext_lazy("Choose fold, check or call, or bet or raise."),
    "hand_over": gettext_lazy("This hand is over."),
    "hand_not_over": gettext_lazy("This hand is not over yet."),
    "seat_not_in_hand": gettext_lazy("That seat is not in this hand."),
    "not_your_turn": gettext_lazy("It is not your turn."),
    "amount_missing": gettext_lazy("Say the total you bet or raise to, in chips."),
    "raises_capped": gettext_lazy("Fixed Limit allows one bet and three raises a round."),
    "only_call": gettext_lazy("You have only enough chips to call."),
    "others_all_in": gettext_lazy("Everyone else is all in: you can call or fold."),
    "not_reopened": gettext_lazy(
        "An all-in for less than a full raise does not reopen the betting: you can call or fold."
    ),
    "bet_only_all_in": gettext_lazy("The only bet you can make is all in, to %(to)s."),
    "raise_only_all_in": gettext_lazy("The only raise you can make is all in, to %(to)s."),
    "bet_fixed": gettext_lazy("In Fixed Limit the bet is to %(to)s."),
    "raise_fixed": gettext_lazy("In Fixed Limit the raise is to %(to)s."),
    "bet_smallest": gettext_lazy("The smallest bet is %(to)s."),
    "raise_smallest": gettext_lazy("The smallest raise is to %(to)s."),
    "bet_pot_limit": gettext_lazy("Pot Limit allows at most a bet to %(to)s."),
    "raise_pot_limit": gettext_lazy("Pot Limit allows at most a raise to %(to)s."),
    "bet_all_in_most": gettext_lazy("You can bet to at most %(to)s, all in."),
    "raise_all_in_most": gettext_lazy("You can raise to at most %(to)s, all in."),
}


def refuse_action(code: str, chips: Mapping[str, int] | None = None) -> TournamentError:
    """The hand engine's refusal `code` (HAND_REFUSALS), its chip amounts written as
    every page writes chips, to raise as an illegal action."""
    amounts = {name: chips_text(amount) for name, amount in (chips or {}).items()}
    message = str(HAND_REFUSALS[code])
    return TournamentError(message % amounts if amounts else message, "illegal_action")


def refuse(code: str, **params: object) -> TournamentError:
    """The refusal `code`, its message filled in with `params`, to raise."""
    message = str(REFUSALS[code])
    return TournamentError(message % params if params else message, code)


def unwritable(text: str) -> bool:
    """Whether `text` holds what the database cannot store: a NUL, or a lone
    surrogate (no UTF-8 for it)."""
    return "\x00" in text or any("\ud800" <= char <= "\udfff" for char in text)


REASON_LENGTH = 200  # what the audit log and the models keep of a reason


def reason_given(reason: str | None) -> str:
    """A staff member's reason as it is stored: stripped, and refused when it is
    missing, too long to keep whole, or holds what cannot be stored."""
    reason = (reason or "").strip()
    if not reason:
        raise refuse("reason_required")
    if len(reason) > REASON_LENGTH:
        raise refuse("reason_too_long", length=REASON_LENGTH)
    if unwritable(reason):
        raise refuse("unwritable_text")
    return reason
