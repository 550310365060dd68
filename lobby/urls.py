from django.urls import path

from lobby import views, wallet_views

app_name = "lobby"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tournaments/<int:pk>/", views.tournament_info, name="tournament"),
    path("wallet/", wallet_views.wallet, name="wallet"),
]
