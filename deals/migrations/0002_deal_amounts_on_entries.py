"""Deals made before the tournament kept its own copy: each entry's agreed amount and
what is left to play for, copied onto the entries and the tournament, which the
floor pays from (tournaments never reads the deals app)."""

from django.db import migrations


def copy_amounts(apps, schema_editor):
    Deal = apps.get_model("deals", "Deal")
    Entry = apps.get_model("tournaments", "Entry")
    Tournament = apps.get_model("tournaments", "Tournament")
    for deal in Deal.objects.all():
        for entry_id, amount in deal.amounts.items():
            Entry.objects.filter(pk=int(entry_id), tournament_id=deal.tournament_id).update(deal_amount=amount)
        Tournament.objects.filter(pk=deal.tournament_id).update(deal_play_for=deal.play_for)


class Migration(migrations.Migration):
    dependencies = [
        ("deals", "0001_initial"),
        ("tournaments", "0011_deal_amounts"),
    ]

    operations = [migrations.RunPython(copy_amounts, migrations.RunPython.noop)]
