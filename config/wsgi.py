import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What the process loaded to start (Django, the apps, the URLconf) lives as long as
# it does; frozen, full collections pass over only what came after. The hands a
# process shows and plays are kept (tournaments.services.hands): a full pass over
# them stalls every request under way, so the whole heap is passed over ten times
# less often, young objects thirty times (reference counting frees a request's own).
# The stalls measured are in the README's bench table (bench/table_latency.py).
gc.freeze()
gc.set_threshold(20_000, 20, 100)
