from django.core.management.base import BaseCommand, CommandError

from wallet.audit import wallet_discrepancies
from wallet.models import Account, Transfer


class Command(BaseCommand):
    help = "Verify the books: balances equal their transfers, none negative, nothing created or lost."

    def handle(self, *args, **options):
        problems = wallet_discrepancies()
        for problem in problems:
            where = f"account {problem.account_id}: " if problem.account_id else ""
            self.stderr.write(f"{where}{problem.message}")
        if problems:
            raise CommandError(f"{len(problems)} discrepancies in the books.")
        self.stdout.write(
            f"The books balance: {Account.objects.count()} accounts, {Transfer.objects.count()} transfers."
        )
