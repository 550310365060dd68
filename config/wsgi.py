import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What the process loaded to start (Django, the apps, the URLconf: some 160,000
# objects) lives as long as it does; frozen, full collections pass over only what
# came after. Under bench/table_latency.py's 200 tables they stalled a web process
# (every thread) for 80-124 ms a few times a minute; frozen, 24-96 ms.
gc.freeze()
