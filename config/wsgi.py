import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What the process loaded to start (Django, the apps, the URLconf: some 160,000
# objects) lives as long as it does; frozen, full collections pass over only what
# came after. Under bench/table_latency.py's 200 tables they stalled a web process
# (every thread) for 80-124 ms a few times a minute; frozen, 24-96 ms. The hands a
# process shows and plays are kept (tournaments.services.hands): a full pass over
# them is a stall of every request under way, so the whole heap is passed over ten
# times less often, young objects thirty times (reference counting frees a
# request's own).
gc.freeze()
gc.set_threshold(20_000, 20, 100)
