from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path("login/", views.LogIn.as_view(), name="login"),
    path("logout/", views.LogOut.as_view(), name="logout"),
    path("password/", views.PasswordChange.as_view(), name="password_change"),
    path("password/done/", views.PasswordChangeDone.as_view(), name="password_change_done"),
]
