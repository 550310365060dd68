from django.http import HttpResponse


def lobby(request):
    return HttpResponse("lobby")


def tournament_info(request, pk):
    return HttpResponse("info")
