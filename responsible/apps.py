from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ResponsibleConfig(AppConfig):
    name = "responsible"
    verbose_name = _("Responsible gaming")

    def ready(self) -> None:
        from responsible import signals  # noqa: F401  (connects the receivers)
