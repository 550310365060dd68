"""The countries a player can pick at sign-up, stored as ISO 3166-1 alpha-2 codes.

A short list of the room's usual markets rather than a package with all of them;
OTHER_COUNTRY (the code ISO leaves for private use) keeps the rest able to sign up.
"""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

OTHER_COUNTRY = "ZZ"

COUNTRIES = {
    "AR": _("Argentina"),
    "AT": _("Austria"),
    "AU": _("Australia"),
    "BE": _("Belgium"),
    "BG": _("Bulgaria"),
    "BR": _("Brazil"),
    "CA": _("Canada"),
    "CH": _("Switzerland"),
    "CL": _("Chile"),
    "CN": _("China"),
    "CO": _("Colombia"),
    "CR": _("Costa Rica"),
    "CY": _("Cyprus"),
    "CZ": _("Czechia"),
    "DE": _("Germany"),
    "DK": _("Denmark"),
    "EE": _("Estonia"),
    "EG": _("Egypt"),
    "ES": _("Spain"),
    "FI": _("Finland"),
    "FO": _("Faroe Islands"),
    "FR": _("France"),
    "GB": _("United Kingdom"),
    "GL": _("Greenland"),
    "GR": _("Greece"),
    "HR": _("Croatia"),
    "HU": _("Hungary"),
    "IE": _("Ireland"),
    "IL": _("Israel"),
    "IN": _("India"),
    "IS": _("Iceland"),
    "IT": _("Italy"),
    "JP": _("Japan"),
    "KR": _("South Korea"),
    "LT": _("Lithuania"),
    "LU": _("Luxembourg"),
    "LV": _("Latvia"),
    "MA": _("Morocco"),
    "MT": _("Malta"),
    "MX": _("Mexico"),
    "NL": _("Netherlands"),
    "NO": _("Norway"),
    "NZ": _("New Zealand"),
    "PE": _("Peru"),
    "PH": _("Philippines"),
    "PL": _("Poland"),
    "PT": _("Portugal"),
    "RO": _("Romania"),
    "RS": _("Serbia"),
    "SE": _("Sweden"),
    "SG": _("Singapore"),
    "SI": _("Slovenia"),
    "SK": _("Slovakia"),
    "TH": _("Thailand"),
    "TR": _("Turkey"),
    "UA": _("Ukraine"),
    "US": _("United States"),
    "UY": _("Uruguay"),
    "VN": _("Vietnam"),
    "ZA": _("South Africa"),
    OTHER_COUNTRY: pgettext_lazy("country", "Other"),
}


def country_choices() -> list[tuple[str, str]]:
    """(code, name) pairs in the reader's language, alphabetical, "Other" last."""
    named = sorted(
        ((code, str(name)) for code, name in COUNTRIES.items() if code != OTHER_COUNTRY),
        key=lambda pair: pair[1].casefold(),
    )
    return [*named, (OTHER_COUNTRY, str(COUNTRIES[OTHER_COUNTRY]))]
