from django.contrib.auth.models import AbstractUser
from django.db import models
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

    def __str__(self) -> str:
        return self.screen_name or self.username
