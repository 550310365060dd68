from django.apps import AppConfig


class DealsConfig(AppConfig):
    name = "deals"
