"""The API's error shape, and the API token's serializers: field mapping only."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """Every error the API answers."""

    code = serializers.CharField(help_text="Stable, for programs: not_found, invalid_filter, method_not_allowed...")
    message = serializers.CharField(help_text="For a person.")


class InvalidRequestSerializer(ErrorSerializer):
    """A request body or header the API cannot take, or a refusal by the rules."""

    # DRF's metaclass takes declared fields out of the class: Serializer.fields stays.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text='Only for a body or header it cannot take: the messages by field ("Idempotency-Key" for the header).',
    )


class TokenRequestSerializer(serializers.Serializer):
    # No account's username is longer (User.username), nor can the log of failed log-ins keep one.
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(trim_whitespace=False, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        source="key", help_text='Send it as "Authorization: Token <token>". The same token until revoked.'
    )
