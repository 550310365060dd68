"""The room's first list of card and hand words for rule 19, in English and Danish;
staff edit it in the admin."""

from django.db import migrations

WORDS = [
    # English
    "ace",
    "aces",
    "king",
    "kings",
    "queen",
    "queens",
    "jack",
    "jacks",
    "deuce",
    "deuces",
    "pair",
    "pocket",
    "pockets",
    "overpair",
    "flush",
    "straight",
    "full house",
    "boat",
    "quads",
    "trips",
    "kicker",
    "suited",
    "offsuit",
    "spades",
    "hearts",
    "diamonds",
    "clubs",
    "folded",
    "nuts",
    "gutshot",
    "outs",
    "AA",
    "KK",
    "QQ",
    "JJ",
    "TT",
    "AK",
    "AKs",
    "AKo",
    "AQ",
    "AJ",
    "KQ",
    # Danish
    "es",
    "esser",
    "konge",
    "konger",
    "dame",
    "damer",
    "knægt",
    "knægte",
    "par",
    "fuldt hus",
    "farve",
    "spar",
    "hjerter",
    "ruder",
    "klør",
    "foldede",
    "foldet",
]


def add(apps, schema_editor):
    ChatWord = apps.get_model("tournaments", "ChatWord")
    ChatWord.objects.bulk_create([ChatWord(word=word) for word in WORDS], ignore_conflicts=True)


def remove(apps, schema_editor):
    apps.get_model("tournaments", "ChatWord").objects.filter(word__in=WORDS).delete()


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0015_table_chat")]

    operations = [migrations.RunPython(add, remove)]
