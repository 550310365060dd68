"""One settings module, driven by the environment.

Without DATABASE_URL the portal runs on its embedded default: SQLite, an in-memory
channel layer and cache, and a Celery worker inside the server process (see the
`demo` command). Production sets DATABASE_URL (PostgreSQL) and REDIS_URL (Celery
broker, channel layer and cache), SECRET_KEY, ALLOWED_HOSTS and DEBUG.
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return default if value is None or not value.strip() else float(value)


def database_from_url(url: str) -> dict:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(f"DATABASE_URL must be a postgres:// URL, not {parts.scheme}://")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
        # Parameters bound by the server, and a statement run 5 times on a connection
        # prepared there: the statements registration repeats are planned once per
        # connection. The portal connects directly (no pooler in transaction mode). A
        # migration that changes a table's columns may fail one prepared statement
        # per connection: the ROLLBACK that follows drops them all.
        "OPTIONS": {"server_side_binding": True, "prepare_threshold": 5},
    }


DATABASE_URL = os.environ.get("DATABASE_URL")
REDIS_URL = os.environ.get("REDIS_URL")
EMBEDDED = DATABASE_URL is None

DEBUG = env_bool("DEBUG", default=EMBEDDED)
SECRET_KEY = os.environ.get("SECRET_KEY") or ""
if not SECRET_KEY:
    if not EMBEDDED:
        raise ImproperlyConfigured("Set SECRET_KEY in the environment.")
    SECRET_KEY = "embedded-default-only-" + "x" * 40
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "axes",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "channels",
    "accounts",
    "audit",
    "wallet",
    "responsible",
    "tournaments",
    "lobby",
    "deals",
    "support",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.StaticFilesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "lobby.middleware.ViewerTimezoneMiddleware",
    # Before any view reads a form (the CSRF check reads it in process_view, after
    # every middleware's call): its refusal is a page of the site, or htmx's swap.
    "config.middleware.TextInputMiddleware",
    # Last, as its docs ask: it turns a locked-out log-in's answer into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    }
]

if EMBEDDED:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # The in-process worker and the web server share the file.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
else:
    assert DATABASE_URL is not None  # not EMBEDDED
    DATABASES = {"default": database_from_url(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/accounts/login/"
# URL names, so each resolves in the language of the page it is reached from.
LOGIN_REDIRECT_URL = "lobby:lobby"
LOGOUT_REDIRECT_URL = "lobby:lobby"

# Failed log-ins (django-axes): every authentication, the site's, the admin's and the
# API token's, counts against one limit per client address and one per username,
# each alone enough to stop a guesser (rotating addresses meets the username's).
# A lockout lasts the cool-off after the last attempt made during it.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=5)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_USERNAME_CALLABLE = "accounts.rate_limit.login_username"
AXES_CLIENT_IP_CALLABLE = "accounts.rate_limit.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("da", _("Danish"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
# The national register of excluded players (responsible.register): its HTTP
# service in production; without an address, the local register staff edit.
ROFUS_URL = os.environ.get("ROFUS_URL", "")
ROFUS_TOKEN = os.environ.get("ROFUS_TOKEN", "")
ROFUS_TIMEOUT_SECONDS = env_float("ROFUS_TIMEOUT_SECONDS", default=3.0)
# The room's own days, months and years (its Leader Boards' periods).
ROOM_TIME_ZONE = os.environ.get("ROOM_TIME_ZONE", "Europe/Copenhagen")
USE_I18N = True
USE_TZ = True

# The lobby sorts prize pools and buy-ins in different currencies by their value in
# euros at these fixed reference rates (one unit in euros): for ordering only, never
# for money. T-Money buys one unit of an event's currency; it is counted as a euro.
LOBBY_SORT_RATES = {"EUR": 1.0, "USD": 0.92, "DKK": 0.134, "TMY": 1.0}

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic writes here (the release step); WhiteNoise serves it from the WSGI workers.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

if REDIS_URL:
    # Django's, keeping one client a connection pool (config.cache).
    CACHES = {"default": {"BACKEND": "config.cache.RedisCache", "LOCATION": REDIS_URL}}
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # Pub/Sub channels ignore Redis database numbers: the prefix keeps two
            # portals (or test runs) on one Redis server, each on its own database, apart.
            "CONFIG": {"hosts": [REDIS_URL], "prefix": f"portal{urlsplit(REDIS_URL).path.strip('/') or '0'}"},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
# What each process keeps for itself, briefly: the lobby's whole pages for visitors
# (lobby.views), which a process renders once a second, where a round trip to the
# shared cache would cost every request.
CACHES["local"] = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "local"}
# A signed-in page view reads its session from Redis; writes go through to the
# database, which keeps sessions across a cache flush. Not on the embedded
# per-process cache, where a logout would not reach the other processes' copies.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db" if REDIS_URL else "django.contrib.sessions.backends.db"
CELERY_TASK_IGNORE_RESULT = True
# Celery's Django fix-up closes the database connection around every task unless
# this is set (then every this many tasks, and CONN_MAX_AGE rules): a new PostgreSQL
# connection for each clock tick cost more than the tick.
CELERY_DB_REUSE_MAX = 1000
# How long the worker's ETA timer may sleep between looks at its schedule: by
# default a second, so a tick could run up to a second late.
CELERY_WORKER_TIMER_PRECISION = 0.05
# Queues. The clocks' tasks have one of their own, for the Procfile's `clock` worker:
# a level or a break must not wait behind the tables' turns when the room is busy.
# The tables' work goes to the node that plays each table (`tables-<index>`:
# tournaments.nodes), or, what any node may do (the hands' sweep; a turn while no
# node is known alive), to the nodes' shared queue: a node is one process, and a long
# task there would hold its tables' turns up. Everything else (the integrity scans,
# the lobby's end-of-second messages, tickets) goes to Celery's default queue, which
# the `clock` worker takes too.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CLOCK_QUEUE = "clock"
TABLES_QUEUE = "tables"
CELERY_TASK_ROUTES = {
    "tournaments.tasks.clock_tick": {"queue": CLOCK_QUEUE},
    "tournaments.tasks.tournaments_sweep": {"queue": CLOCK_QUEUE},
    "tournaments.tasks.hands_sweep": {"queue": TABLES_QUEUE},
    "tournaments.tasks.tables_tick": {"queue": TABLES_QUEUE},
    "tournaments.tasks.hand_report": {"queue": TABLES_QUEUE},
}
# The table nodes (tournaments.nodes): Celery workers of one process each, the
# Procfile's `worker`, each playing the tables rendezvous hashing gives it, so that a
# hand's state stays warm in one process. Every process that queues a turn reads how
# many there are from here. None on the embedded default: its one worker thread
# takes every turn from Celery's default queue.
TABLE_NODES = int(os.environ.get("TABLE_NODES") or (0 if EMBEDDED else 2))
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_TIMEZONE = "UTC"
# A far-ahead ETA parks in Redis until the visibility timeout after a worker dies;
# the periodic sweep, not ETAs, is what makes restarts safe.
CELERY_BEAT_SCHEDULE = {
    "tournaments-sweep": {"task": "tournaments.tasks.tournaments_sweep", "schedule": 2.0},
    "wallet-tickets-expire": {"task": "wallet.tasks.tickets_expire_task", "schedule": 60.0},
    # Turns and finished hands whose task was lost with a worker.
    "hands-sweep": {"task": "tournaments.tasks.hands_sweep", "schedule": 5.0},
}
# The demo's bots take a seat in each open Sit & Go this often (seconds; 0: never).
DEMO_SIT_AND_GO_BOT_SECONDS = env_float("DEMO_SIT_AND_GO_BOT_SECONDS", default=20.0 if EMBEDDED else 0.0)
if DEMO_SIT_AND_GO_BOT_SECONDS:
    CELERY_BEAT_SCHEDULE["sit-and-go-bots"] = {
        "task": "tournaments.tasks.sit_and_go_bots",
        "schedule": DEMO_SIT_AND_GO_BOT_SECONDS,
    }

# The tables (tournaments.services.hands): a bot's thinking time, and the pause after
# a hand before the next one's first turn starts, so people see how it ended.
# The embedded default's one worker and SQLite's one writer share out fewer turns a
# second: its bots think longer, so the clocks' ticks are not queued behind them.
TABLE_BOT_SECONDS = env_float("TABLE_BOT_SECONDS", default=4.0 if EMBEDDED else 1.5)
TABLE_HAND_GAP_SECONDS = env_float("TABLE_HAND_GAP_SECONDS", default=3.0)
# A turn this long past its deadline has lost its worker (rule 22): an event whose
# policy says so rolls its hand back (Tournament.crash_policy). Far above any queue.
TABLE_STALLED_SECONDS = env_float("TABLE_STALLED_SECONDS", default=30.0)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Token first: an anonymous API call then gets 401 with WWW-Authenticate, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PAGINATION_CLASS": "config.api.PageNumbers",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.api_errors.exception_handler",
    # Every body the API takes is a JSON object (config.api); anything else is a 400 or 415.
    "DEFAULT_PARSER_CLASSES": ["config.api.JSONObjectParser"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tournament portal API",
    "DESCRIPTION": "Public read API of the poker room's tournaments.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies as their own components, with what they refuse (blank strings...).
    "COMPONENT_SPLIT_REQUEST": True,
    # Served from our own static files: the portal needs no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "GameEnum": "tournaments.models.Game",
        "BountyKindEnum": "tournaments.models.BountyKind",
    },
}

# Content-Security-Policy: only our own scripts and styles, no inline ones (the
# pages' JavaScript is in static/js; htmx injects no indicator style), and the live
# socket to the same host. The API docs page relaxes it for itself (config.urls).
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# HTTPS hardening; HTTPS=0 turns it off for plain-HTTP test servers.
HTTPS = env_bool("HTTPS", default=not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 31536000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusal_without_traceback": {"()": "config.log.RefusalWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # A task per sweep is routine; say only what needs attention.
        "celery": {"level": os.environ.get("CELERY_LOG_LEVEL", "WARNING")},
        "django.request": {"filters": ["refusal_without_traceback"]},
    },
}
