from django.urls import path

from support import conduct_views, integrity_views, responsible_views, views

app_name = "support"
urlpatterns = [
    path("", views.home, name="home"),
    path("tickets/", views.tickets, name="tickets"),
    path("players/", views.player_search, name="players"),
    path("players/<int:pk>/", views.player_wallet, name="player"),
    path("players/<int:pk>/deposit/", views.deposit, name="deposit"),
    path("players/<int:pk>/adjust/", views.adjust, name="adjust"),
    path("players/<int:pk>/tmoney/", views.tmoney, name="tmoney"),
    path("players/<int:pk>/tickets/", views.ticket, name="ticket"),
    path("players/<int:pk>/mute/", conduct_views.mute, name="mute"),
    path("players/<int:pk>/exclusions/<int:exclusion_id>/lift/", responsible_views.lift, name="lift"),
    path("chat/", conduct_views.chat_log, name="chat_log"),
    path("seats/", conduct_views.seat_transfer, name="seat_transfer"),
    path("integrity/", integrity_views.flags, name="integrity"),
    path("integrity/<int:pk>/decide/", integrity_views.decide, name="integrity_decide"),
    path("integrity/<int:pk>/withhold/", integrity_views.withhold, name="integrity_withhold"),
    path("integrity/prizes/<int:pk>/pay/", integrity_views.pay, name="integrity_pay"),
    path("integrity/prizes/<int:pk>/confiscate/", integrity_views.confiscate, name="integrity_confiscate"),
]
