from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"

    def ready(self):
        from lobby import live

        live.connect()
