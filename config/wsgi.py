import os

from django.core.wsgi import get_wsgi_application

from config.collector import collector_tuned

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

collector_tuned()  # config.collector says why
