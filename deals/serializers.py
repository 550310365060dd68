"""The deal API's request bodies: field mapping only, no rules (deals.services has them)."""

from rest_framework import serializers


class DealConsentSerializer(serializers.Serializer):
    wants = serializers.BooleanField(help_text="Whether you want to negotiate a deal.")


class DealAnswerSerializer(serializers.Serializer):
    accept = serializers.BooleanField(help_text="True accepts the proposal, false rejects it.")
