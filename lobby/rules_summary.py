"""The room's rules (RULES.md) as Tournament Info states them for one event."""

from datetime import timedelta

from django.utils.translation import gettext as _

from lobby.templatetags.poker import duration
from tournaments.models import BettingStructure, BountyKind, BreakPolicyKind, Game, Tournament
from tournaments.rules.schedule import BreakPolicy


def break_policy_text(tournament: Tournament) -> str:
    if tournament.break_policy == BreakPolicyKind.NONE:
        return _("No breaks in this tournament.")
    policy = BreakPolicy(
        minutes=tournament.break_minutes,
        seconds=tournament.break_seconds,
        interval_minutes=tournament.break_interval_minutes,
        interval_seconds=tournament.break_interval_seconds,
    )
    if tournament.break_policy == BreakPolicyKind.SYNCHRONISED:
        text = _("A break of %(length)s at 55 minutes past every hour.") % {"length": duration(policy.length)}
        if tournament.has_addon and tournament.addon_break_minutes:
            text += " " + _("An extra add-on break of %(length)s follows the rebuy period.") % {
                "length": duration(timedelta(minutes=tournament.addon_break_minutes))
            }
    else:
        text = _("A break of %(length)s after every %(interval)s of play.") % {
            "length": duration(policy.length),
            "interval": duration(policy.interval),
        }
    return (
        text
        + " "
        + _(
            "A break starts when every table has finished its hand, so some tables break a little longer; "
            "the level clock stops during breaks."
        )
    )


def applicable_rules(tournament: Tournament) -> list[tuple[int, str]]:
    """The numbered rules that govern this event, in the room's words."""
    rules = [
        (2, _("The tournament starts exactly at the time shown; the room may postpone or cancel it.")),
        (4, _("Seats are drawn at random; seats cannot be swapped.")),
        (5, _("On every new table the button starts at seat 1.")),
    ]
    if tournament.betting == BettingStructure.FIXED_LIMIT:
        rules.append((6, _("Fixed Limit: one bet and three raises per betting round.")))
    else:
        rules.append((6, _("No cap on the number of raises.")))
    rules.append(
        (7, _("Prizes depend on the number of entrants and are final once registration and rebuys have closed."))
    )
    if tournament.is_rebuy:
        rules.append(
            (8, _("A rebuy needs the money in your account in this currency; money in play elsewhere cannot be used."))
        )
    late = _("Late registration is open until the time shown above; you may enter only once.")
    if tournament.late_registration_closes_at_first_elimination:
        late += " " + _("It closes at the first elimination.")
    rules.append((9, late))
    if tournament.unregistration_allowed:
        rules.append((10, _("You can unregister until the deadline above and get back exactly what you paid.")))
    else:
        rules.append((10, _("This tournament allows no unregistration.")))
    rules += [
        (12, _("Players knocked out in the same hand finish in order of their chips at the start of that hand.")),
        (13, _("Near the money play may go hand for hand.")),
        (14, _("The button moves forward after every hand; some players may skip blinds.")),
        (15, _("Heads-up, the button posts the small blind and acts first before the flop.")),
        (16, _("Tables are balanced by moving players at random to equivalent positions.")),
        (17, break_policy_text(tournament)),
        (18, _("If your time runs out, your hand is checked, or folded when there was a bet.")),
    ]
    if tournament.deals_allowed:
        rules.append((23, _("Deals are allowed at the final table when every remaining player agrees.")))
    else:
        rules.append((23, _("Deals are not allowed in this tournament.")))
    if tournament.bounty_kind != BountyKind.NONE:
        rules.append(
            (24, _("A bounty goes to the winner of the pot in which the player was all-in with their last chips."))
        )
        if tournament.game == Game.OMAHA_HILO:
            rules.append((25, _("In hi/lo games the bounty goes to the high hand.")))
        rules.append((26, _("A split pot splits the bounty; odd cents go to the earliest positions.")))
    return rules
