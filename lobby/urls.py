from django.urls import path

from lobby import board_views, entry_views, hand_views, player_views, table_views, views, wallet_views

app_name = "lobby"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tournaments/<int:pk>/", views.tournament_info, name="tournament"),
    path("tournaments/<int:pk>/clock/", views.tournament_clock_card, name="tournament_clock"),
    path("tournaments/<int:pk>/tables/<int:number>/", table_views.table_view, name="table"),
    path("tournaments/<int:pk>/tables/<int:number>/me/", table_views.table_own_part, name="table_own"),
    path("tournaments/<int:pk>/tables/<int:number>/act/", table_views.table_act, name="table_act"),
    path("tournaments/<int:pk>/tables/<int:number>/sit/", table_views.table_sit, name="table_sit"),
    path("tournaments/<int:pk>/tables/<int:number>/chat/", table_views.table_chat, name="table_chat"),
    path("tournaments/<int:pk>/tables/<int:number>/hands.phh", hand_views.table_history, name="table_history"),
    path("tournaments/<int:pk>/hands/<int:hand_id>/", hand_views.hand_view, name="hand"),
    path("tournaments/<int:pk>/my-hands.phh", hand_views.own_history, name="own_history"),
    path("tournaments/<int:pk>/players/", player_views.players, name="players"),
    path("wallet/", wallet_views.wallet, name="wallet"),
    path("my/tournaments/", player_views.my_tournaments, name="my_tournaments"),
    path("my/hands/", hand_views.my_hands, name="my_hands"),
    path("my/tables/", table_views.my_tables, name="my_tables"),
    path("my/results/", player_views.my_results, name="my_results"),
    path("players/<int:user_id>/results/", player_views.player_results, name="player_results"),
    path("leader-boards/<str:kind>/<str:period>/", board_views.leader_board, name="leader_board"),
    path("tournaments/<int:pk>/mark/", views.own_mark, name="own_mark"),
    path("tournaments/<int:pk>/registration-row/", entry_views.registration_row, name="registration_row"),
    path("tournaments/<int:pk>/registration-card/", entry_views.registration_card, name="registration_card"),
    path("tournaments/<int:pk>/register/", entry_views.register, name="register"),
    path("tournaments/<int:pk>/unregister/", entry_views.unregister, name="unregister"),
    path("tournaments/<int:pk>/rebuy/", entry_views.rebuy, name="rebuy"),
    path("tournaments/<int:pk>/addon/", entry_views.addon, name="addon"),
]
