"""The test suite runs on real PostgreSQL and Redis (see README); override the
addresses with DATABASE_URL and REDIS_URL.

With TESTS_DATABASE=sqlite the tests run on the embedded default instead (SQLite,
no Redis), as .ci/run's second run does for the registration, ledger and
cancellation tests: the same code must work on both."""

import os

if os.environ.get("TESTS_DATABASE") == "sqlite":
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
else:
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/portal")
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-" + "t" * 40)
os.environ.setdefault("HTTPS", "0")
os.environ.setdefault("DEBUG", "0")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests

# Tests serve static files from the apps' folders; production runs collectstatic.
STATIC_ROOT = None
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Bots act at once and the next hand follows the last without a pause: a test plays
# a table's hands through the services without waiting for a clock (a test that
# runs a real worker may give the worker a pause between hands).
TABLE_BOT_SECONDS = env_float("TABLE_BOT_SECONDS", default=0.0)  # noqa: F405
TABLE_HAND_GAP_SECONDS = env_float("TABLE_HAND_GAP_SECONDS", default=0.0)  # noqa: F405
