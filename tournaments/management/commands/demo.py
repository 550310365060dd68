"""`manage.py demo`: the whole portal in one process on the embedded default.

Migrates the SQLite database, loads the demo room when it is empty, then serves
HTTP and WebSocket on one port with a Celery worker and beat in the same process
(memory transport) and the in-memory channel layer. Ctrl-C stops everything.
"""

import threading
import time

from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from tournaments.demo import LOGINS, demo_load
from tournaments.models import Tournament
from wallet.models import AccountKind
from wallet.money import format_money
from wallet.services import AccountSpec, account_get


class Command(BaseCommand):
    help = "Run the portal with demo data on the embedded default (SQLite, in-process worker)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-serve", action="store_true", help="Prepare the database and exit.")

    def handle(self, *args, host: str, port: int, no_serve: bool, **options):
        if not settings.EMBEDDED:
            raise CommandError("The demo runs on the embedded default: unset DATABASE_URL.")
        call_command("migrate", interactive=False, verbosity=0)
        if Tournament.objects.exists():
            self.stdout.write("Reusing the demo data already in the database.")
        else:
            self.stdout.write("Loading the demo room: people, wallets, 40+ tournaments (about half a minute)...")
            demo_load(now=timezone.now())
        if no_serve:
            self._print_logins(f"http://{host}:{port}/")
            return
        self._serve(host, port)

    def _serve(self, host: str, port: int) -> None:
        import uvicorn
        from celery.beat import EmbeddedService
        from celery.contrib.testing.worker import start_worker

        from config.asgi import application
        from config.celery import app

        beat = EmbeddedService(app, thread=True, schedule_filename=str(settings.BASE_DIR / ".celerybeat-schedule"))
        server = uvicorn.Server(
            uvicorn.Config(
                # It wraps any ASGI application; django-stubs says Django's own only.
                ASGIStaticFilesHandler(application) if settings.DEBUG else application,  # type: ignore[arg-type]
                host=host,
                port=port,
                lifespan="off",
                log_level="warning",
            )
        )
        with start_worker(
            app,
            pool="threads",
            concurrency=4,
            # The tables' (no table node runs here), the clocks' and the rest.
            queues=[settings.TABLES_QUEUE, settings.CELERY_TASK_DEFAULT_QUEUE, settings.CLOCK_QUEUE],
            perform_ping_check=False,
            loglevel="WARNING",
        ):
            beat.start()  # type: ignore[union-attr]  # thread=True: a thread, which has start()
            # Announce the URL only once the socket is listening.
            threading.Thread(
                target=self._announce_when_started, args=(server, f"http://{host}:{port}/"), daemon=True
            ).start()
            try:
                server.run()
            except KeyboardInterrupt:
                pass  # uvicorn has already shut down gracefully and re-raises Ctrl-C
            finally:
                beat.stop()
        self.stdout.write("Stopped.")

    def _announce_when_started(self, server, url: str) -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if server.started:
            self._print_logins(url)

    def _print_logins(self, url: str) -> None:
        self.stdout.write(self.style.SUCCESS(f"\nThe poker room is open at {url}"))
        self.stdout.write(f"Admin: {url}admin/   API: {url}api/docs/\n")
        self.stdout.write("Demo logins (username / password):")
        for login in LOGINS:
            balances = []
            if login.role == "player":
                from accounts.models import User

                user = User.objects.get(username=login.username)
                for currency in sorted(login.balances):
                    kind = AccountKind.PLAYER_TMONEY if currency == "TMY" else AccountKind.PLAYER_CASH
                    amount = account_get(AccountSpec(kind=kind, currency=currency, owner_id=user.pk)).balance
                    balances.append(format_money(amount, currency))
            extra = f"  balances: {', '.join(balances)}" if balances else ""
            self.stdout.write(f"  {login.role:<7} {login.username:<8} / {login.password:<12}{extra}")
        self.stdout.write("Press Ctrl-C to stop.\n")
