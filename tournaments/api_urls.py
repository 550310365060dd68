from django.urls import path

from tournaments.api import TournamentDetailApi, TournamentListApi

urlpatterns = [
    path("tournaments/", TournamentListApi.as_view(), name="api-tournament-list"),
    path("tournaments/<int:pk>/", TournamentDetailApi.as_view(), name="api-tournament-detail"),
]
