from django.urls import path

from deals import views

app_name = "deals"
urlpatterns = [
    path("tournaments/<int:tournament_id>/card/", views.deal_card, name="card"),
    path("tournaments/<int:tournament_id>/request/", views.deal_request, name="request"),
    path("<int:pk>/", views.negotiation_page, name="negotiation"),
    path("<int:pk>/card/", views.negotiation_card, name="negotiation_card"),
    path("<int:pk>/consent/", views.consent, name="consent"),
    path("<int:pk>/claim/", views.claim, name="claim"),
    path("<int:pk>/stop-clock/", views.stop_clock, name="stop_clock"),
    path("<int:pk>/end/", views.end, name="end"),
    path("<int:pk>/proposals/", views.propose, name="propose"),
    path("<int:pk>/proposals/<int:proposal_id>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:pk>/proposals/<int:proposal_id>/answer/", views.answer, name="answer"),
]
