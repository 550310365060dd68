from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A person with one account (rule 21): player, staff or admin.

    `screen_name` is what other players see at tables and in standings; the
    username stays private to the login form.
    """

    screen_name = models.CharField(_("screen name"), max_length=32, unique=True)
    country = models.CharField(_("country"), max_length=2, blank=True)
    preferred_currency = models.CharField(_("preferred currency"), max_length=3, default="EUR")
    language = models.CharField(_("language"), max_length=8, default="en")
    # Played by the house's bot (tournaments.rules.bots): the demo's players and load tests'.
    is_bot = models.BooleanField(_("bot"), default=False)
    # Carries the room's bounty in every Team Pro bounty event he plays (rule 23's note).
    is_team_pro = models.BooleanField(_("team pro"), default=False)
    # The national identity number the register of excluded players (ROFUS) is asked
    # about at sign-up and every log-in (responsible.register); one account per
    # person (rule 21). Empty: not asked (players from abroad who gave none, staff,
    # the demo's bots); a permanent exclusion moves it to the exclusion.
    national_id = models.CharField(_("national identity number"), max_length=16, blank=True)
    # Every how many minutes of a session the reality check reminds him (responsible
    # gaming; empty: never). On the user, which every signed-in page reads anyway.
    reality_check_minutes = models.PositiveSmallIntegerField(_("reality check every (minutes)"), null=True, blank=True)

    class Meta(AbstractUser.Meta):
        # "Alice" and "alice" would pass for one player at the tables (rule 21), so
        # names and addresses are unique whatever their case; the services check
        # first for a clear message, these settle two sign-ups racing for one name.
        constraints = [
            models.UniqueConstraint(
                Lower("username"),
                name="accounts_user_username_ci_unique",
                violation_error_message=_("A user with that username already exists."),
            ),
            models.UniqueConstraint(
                Lower("screen_name"),
                name="accounts_user_screen_name_ci_unique",
                violation_error_message=_("That screen name is taken."),
            ),
            # Staff accounts made with createsuperuser may have no address.
            models.UniqueConstraint(
                Lower("email"),
                condition=~models.Q(email=""),
                name="accounts_user_email_ci_unique",
                violation_error_message=_("An account with that email address already exists."),
            ),
            models.UniqueConstraint(
                fields=["national_id"],
                condition=~models.Q(national_id=""),
                name="accounts_user_national_id_unique",
                violation_error_message=_("An account with that national identity number already exists."),
            ),
        ]

    def __str__(self) -> str:
        return self.screen_name or self.username
