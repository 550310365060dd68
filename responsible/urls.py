from django.urls import path

from responsible import views

app_name = "responsible"
urlpatterns = [
    path("limits/", views.limits, name="limits"),
    path("reality-check/", views.reality_check, name="reality_check"),
]
