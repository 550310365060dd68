"""Where admins configure events: blind structures and tournaments (rule 3).

Tournaments are saved and cloned through tournaments.services.editing, so every edit leaves
an audit row; status and the entry counters belong to the clock and the registration
services and are read-only here. Staff cancel and postpone events (rules 2, 22) with
list actions that ask for a reason on a confirmation page, then call
tournaments.services.cancellation.
"""

from datetime import datetime, timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.contrib.admin.widgets import AdminSplitDateTime
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from audit.services import audit_log
from tournaments.models import BlindLevel, BlindStructure, ChatWord, EntryKind, LeaderBoard, SitAndGo, Tournament
from tournaments.rules.schedule import Level, validate_levels
from tournaments.services.cancellation import REASON_LENGTH, CancelMode, tournament_cancel, tournament_postpone
from tournaments.services.clock import tournament_pause, tournament_resume
from tournaments.services.editing import tournament_clone, tournament_save
from tournaments.services.refusals import TournamentError
from tournaments.services.sit_and_go import sit_and_gos_open
from tournaments.services.tables import hands_roll_back
from wallet.money import format_plain_amount

MONEY_FIELDS = frozenset(
    {
        "buy_in",
        "fee",
        "rebuy_price",
        "rebuy_fee",
        "addon_price",
        "addon_fee",
        "guarantee",
        "bounty_amount",
        "deal_leave_for_winner",
    }
)
MONEY_HELP = _("In cents (minor units) of the event's currency: 1000 is 10.00.")
# Entrants paid these terms; a refund or the prize pool must not see different ones.
TERMS_FIXED_ONCE_ENTERED = ("entry_kind", "currency", "buy_in", "fee", "bounty_kind", "bounty_amount")
CLONE_INTERVAL = timedelta(weeks=1)


def next_weekly_start(start: datetime, now: datetime) -> datetime:
    """One week after `start`, or the first weekly repeat still ahead (a new event
    must start in the future). Counted on the admin's wall clock, so a recurring
    event keeps its local time across a daylight-saving change."""
    weeks = max(1, (now - start) // CLONE_INTERVAL + 1)
    return timezone.localtime(start) + weeks * CLONE_INTERVAL


class BlindLevelFormSet(forms.BaseInlineFormSet):
    def clean(self):
        if any(self.errors):
            # Each row's own problems first; the structure is judged once every row reads.
            return
        rows = [form.cleaned_data for form in self.forms if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        positions = sorted(row["position"] for row in rows)
        if positions != list(range(1, len(rows) + 1)):
            # Tournament Info numbers levels 1, 2, 3...; the stored number must say the same.
            raise ValidationError(
                _("Number the levels 1 to %(count)s, each number once."),
                code="level_numbers",
                params={"count": len(rows)},
            )
        super().clean()
        rows.sort(key=lambda row: row["position"])
        problems = validate_levels(
            [Level(row["small_blind"], row["big_blind"], row["ante"], row["minutes"]) for row in rows]
        )
        if problems:
            raise ValidationError(problems)


class BlindLevelInline(admin.TabularInline):
    model = BlindLevel
    formset = BlindLevelFormSet
    fields = ("position", "small_blind", "big_blind", "ante", "ante_kind", "minutes")
    ordering = ("position",)

    def get_extra(self, request, obj=None, **kwargs):
        return 1 if obj else 10


@admin.register(BlindStructure)
class BlindStructureAdmin(admin.ModelAdmin):
    list_display = ("name", "description", "level_count", "tournament_count")
    search_fields = ("name", "description")
    inlines = (BlindLevelInline,)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                level_count=Count("levels", distinct=True),
                tournament_count=Count("tournaments", distinct=True),
            )
        )

    @admin.display(description=_("levels"), ordering="level_count")
    def level_count(self, obj):
        return obj.level_count

    @admin.display(description=_("used by events"), ordering="tournament_count")
    def tournament_count(self, obj):
        return obj.tournament_count

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Events using this structure change their clock with it: record who and what.
        audit_log(
            action="tournaments.blind_structure.changed" if change else "tournaments.blind_structure.created",
            subject=form.instance,
            actor=request.user,
            data={
                "fields": form.changed_data,
                "levels": [
                    [
                        level.position,
                        level.small_blind,
                        level.big_blind,
                        level.ante,
                        level.ante_kind,
                        level.minutes,
                        level.seconds,
                    ]
                    for level in form.instance.levels.order_by("position")
                ],
            },
        )


class CancelForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Kept in the audit log with your name; support gives it to players who ask."),
    )


class PauseForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        help_text=_("Shown to players beside the clock, and kept in the audit log with your name."),
    )


class RollBackForm(forms.Form):
    table = forms.IntegerField(
        label=_("Table"),
        required=False,
        min_value=1,
        help_text=_("The table's number; leave it empty to roll back the hands at every table."),
    )
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        help_text=_("Shown to players with the hand, and kept in the audit log with your name."),
    )


class PostponeForm(CancelForm):
    new_start = forms.SplitDateTimeField(label=_("New start"), widget=AdminSplitDateTime)
    field_order = ("new_start", "reason")


ROLLBACK_HELP = _(
    "Every entrant, still playing or eliminated, gets back everything they paid: buy-ins, fees, rebuys, "
    "add-ons and bounties, in the form paid (cash as cash, T-Money as T-Money, tickets as tickets, "
    "satellite seats as T-Money)."
)
ROLL_FORWARD_HELP = _(
    "Only for events in play. Each remaining player gets their fees back and a share of the prize pool: "
    "half equally and half by chip count; in the money, each first gets the lowest prize not yet awarded "
    "and the rest goes by chip count. The house pays any overlay up to the guarantee. Eliminated players "
    "get nothing."
)
PAUSE_HELP = _(
    "Stops the clock: levels and breaks stand still until you resume, and everything still to come "
    "happens that much later. Players see the pause and its reason on Tournament Info."
)
ROLL_BACK_HELP = _(
    "Rule 22, for a server problem: the hands in play are voided, every player gets back the chips he had "
    "when the hand was dealt (bets in the pot included), and each table deals a new hand from the same "
    "button. The hands stay in the history, marked as rolled back with your reason."
)
POSTPONE_HELP = _("Moves the start later, before the event starts; every registration is kept.")


class TournamentForm(forms.ModelForm):
    # No Meta: ModelAdmin builds the form's fields from the fieldsets.

    def add_error(self, field, error):
        # A rule about a read-only field (the terms, once entrants paid them) would
        # otherwise have no field to sit on; show it above the form, named.
        if field is None and isinstance(error, ValidationError) and hasattr(error, "error_dict"):
            shown: dict[str, list] = {}
            for name, errors in error.error_dict.items():
                if name == NON_FIELD_ERRORS or name in self.fields:
                    shown.setdefault(name, []).extend(errors)
                    continue
                # Model validation names the model's own fields, never a reverse relation.
                label = capfirst(Tournament._meta.get_field(name).verbose_name)  # type: ignore[union-attr]
                shown.setdefault(NON_FIELD_ERRORS, []).extend(
                    f"{label}: {message}" for message in ValidationError(errors).messages
                )
            error = ValidationError(shown)
        super().add_error(field, error)


@admin.register(ChatWord)
class ChatWordAdmin(admin.ModelAdmin):
    """The card and hand words that hold back a message at a table with a hand in play (rule 19)."""

    list_display = ("word",)
    search_fields = ("word",)


@admin.register(LeaderBoard)
class LeaderBoardAdmin(admin.ModelAdmin):
    """Each board's points formula (tournaments.rules.leader_boards): changes apply to
    finishes from then on; points earned stay as they were."""

    list_display = ("kind", "scale", "buy_in_offset")

    def has_delete_permission(self, request, obj=None):
        return False  # its points refer to it


@admin.register(SitAndGo)
class SitAndGoAdmin(admin.ModelAdmin):
    """Sit & Go templates: saved active, one of its events opens for registration at
    once; each that fills starts and opens the next."""

    list_display = ("name", "active", "game", "betting", "buy_in", "fee", "table_size", "tables", "open_seats")
    list_filter = ("active", "game")
    search_fields = ("name",)

    @admin.display(description=_("seats taken"))
    def open_seats(self, obj: SitAndGo) -> str:
        event = obj.events.filter(started_at__isnull=True).order_by("-pk").first()
        return f"{event.entries_count} / {event.max_entrants}" if event else "-"

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            audit_log(
                action="tournaments.sit_and_go.changed" if change else "tournaments.sit_and_go.created",
                subject=obj,
                actor=request.user,
                data={"fields": form.changed_data},
            )
            sit_and_gos_open(now=timezone.now())


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    # Saving is the form's first submit button, so Enter saves rather than clones.
    save_on_top = True
    list_display = ("scheduled_start", "name", "game", "limit", "buy_in_display", "entrants", "status")
    list_filter = ("status", "game", "betting", "currency", "entry_kind", "speed", "bounty_kind", "break_policy")
    search_fields = ("name", "blind_structure__name")
    date_hierarchy = "scheduled_start"
    ordering = ("-scheduled_start",)
    autocomplete_fields = ("blind_structure", "satellite_target", "bounty_players")
    readonly_fields = ("status", "entries_count", "prize_contributions", "entry_terms", "clone_button")
    actions = (
        "clone_selected",
        "pause_clock",
        "resume_clock",
        "roll_back_hands",
        "cancel_rollback",
        "cancel_roll_forward",
        "postpone",
    )
    fieldsets = (
        (_("Event"), {"fields": ("name", "game", "betting", "scheduled_start", "status")}),
        (_("Entry"), {"fields": ("entry_kind", "currency", "buy_in", "fee")}),
        (
            _("Structure"),
            {"fields": ("starting_stack", "table_size", "blind_structure", "speed", "deepstack")},
        ),
        (
            _("Breaks"),
            {"fields": ("break_policy", "break_minutes", "break_interval_minutes", "addon_break_minutes")},
        ),
        (
            _("Registration"),
            {
                "fields": (
                    "registration_opens_at",
                    ("min_entrants", "max_entrants", "entries_count"),
                    "late_registration_minutes",
                    "extended_late_registration_minutes",
                    "late_registration_closes_at_first_elimination",
                    "unregistration_allowed",
                    "unregistration_deadline_minutes",
                )
            },
        ),
        (
            _("Rebuys and add-on"),
            {
                "fields": (
                    ("rebuy_price", "rebuy_fee", "rebuy_chips"),
                    ("rebuy_limit", "rebuy_levels"),
                    ("addon_price", "addon_fee", "addon_chips"),
                )
            },
        ),
        (
            _("Prizes and bounties"),
            {
                "fields": (
                    "prize_structure",
                    "guarantee",
                    "prize_contributions",
                    "bounty_kind",
                    "bounty_amount",
                    "pko_cash_percent",
                    "bounty_players",
                )
            },
        ),
        (_("Satellite"), {"fields": ("satellite_target", "satellite_seats", "ends_when_prizes_equal")}),
        (_("Floor"), {"fields": ("dead_button", "hand_for_hand_at")}),
        (
            _("Time to act (rule 18)"),
            {
                "fields": (
                    "action_seconds",
                    "time_bank_seconds",
                    "time_bank_refill_seconds",
                    "disconnect_extra_seconds",
                    "disconnect_extra_from",
                )
            },
        ),
        (_("Server problems (rule 22)"), {"fields": ("crash_policy",)}),
        (_("Deals"), {"fields": ("deals_allowed", "deal_leave_for_winner", "deal_paid_at_bust")}),
        (_("Leader Board"), {"fields": ("leader_board",)}),
        (_("Formats"), {"fields": ("heads_up", "shootout", "idle_hands_limit")}),
    )

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if formfield is not None and db_field.name in MONEY_FIELDS:
            formfield.help_text = MONEY_HELP
        return formfield

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        if obj is not None and obj.entries_count > 0:
            fields = (*fields, *TERMS_FIXED_ONCE_ENTERED)
        return fields

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return super().get_fieldsets(request, obj)
        (event, event_options), (entry, entry_options), *rest = super().get_fieldsets(request, obj)
        # Stored amounts are minor units; show what players read beside them.
        entry_options = {**entry_options, "fields": (*entry_options["fields"], "entry_terms")}
        if self.can_clone(request, obj):
            event_options = {**event_options, "fields": (*event_options["fields"], "clone_button")}
        return ((event, event_options), (entry, entry_options), *rest)

    @admin.display(description=_("limit"), ordering="betting")
    def limit(self, obj):
        return obj.get_betting_display()

    @admin.display(description=_("buy-in"), ordering="buy_in")
    def buy_in_display(self, obj):
        if obj.entry_kind == EntryKind.FREEROLL:
            return _("Freeroll")
        terms = f"{format_plain_amount(obj.buy_in)} + {format_plain_amount(obj.fee)} {obj.get_currency_display()}"
        if obj.entry_kind == EntryKind.TICKET_ONLY:
            return _("%(terms)s, ticket only") % {"terms": terms}
        return terms

    @admin.display(description=_("shown as"))
    def entry_terms(self, obj):
        terms = self.buy_in_display(obj)
        if obj.bounty_amount:
            return _("%(terms)s, bounty %(bounty)s") % {
                "terms": terms,
                "bounty": format_plain_amount(obj.bounty_amount),
            }
        return terms

    @admin.display(description=_("entrants / max"), ordering="entries_count")
    def entrants(self, obj):
        return f"{obj.entries_count} / {obj.max_entrants}"

    @admin.display(description=_("clone"))
    def clone_button(self, obj):
        return format_html(
            '<button type="submit" class="button" formaction="{}" formmethod="post" formnovalidate>{}</button>'
            '<div class="help">{}</div>',
            reverse("admin:tournaments_tournament_clone", args=[obj.pk]),
            _("Clone one week later"),
            _("Copies the saved event, without entrants; unsaved changes on this page are not copied."),
        )

    def save_model(self, request, obj, form, change):
        if change:
            # The clock and the registration services may have moved these since the
            # form loaded the event; lock the row and keep theirs, not a stale copy.
            current = (
                Tournament.objects.locked().values("status", "entries_count", "prize_contributions").get(pk=obj.pk)
            )
            for name, value in current.items():
                setattr(obj, name, value)
        tournament_save(tournament=obj, actor=request.user, changed=list(form.changed_data), created=not change)

    def has_run_permission(self, request) -> bool:
        """Pause, resume, cancel and postpone: staff's, who need not configure events."""
        return request.user.has_perm("tournaments.run_tournament")

    def can_clone(self, request, obj=None) -> bool:
        # A clone is a new event: it takes the right to add as well as to change.
        return self.has_add_permission(request) and self.has_change_permission(request, obj)

    def get_urls(self):
        clone = self.admin_site.admin_view(require_POST(self.clone_view))
        return [path("<path:object_id>/clone/", clone, name="tournaments_tournament_clone"), *super().get_urls()]

    def clone_view(self, request, object_id):
        tournament = self.get_object(request, unquote(object_id))
        if tournament is None:
            raise Http404
        if not self.can_clone(request, tournament):
            raise PermissionDenied
        clone = tournament_clone(
            tournament=tournament,
            actor=request.user,
            start=next_weekly_start(tournament.scheduled_start, timezone.now()),
        )
        self.message_user(
            request,
            _("Cloned “%(name)s”: the copy starts %(start)s.")
            % {"name": clone.name, "start": f"{timezone.localtime(clone.scheduled_start):%Y-%m-%d %H:%M %Z}"},
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:tournaments_tournament_change", args=[clone.pk]))

    @admin.action(description=_("Clone selected events (one week later)"), permissions=["add", "change"])
    def clone_selected(self, request, queryset):
        now = timezone.now()
        # All or none: a half-cloned week is harder to fix than a refused one.
        with transaction.atomic():
            clones = [
                tournament_clone(
                    tournament=tournament, actor=request.user, start=next_weekly_start(tournament.scheduled_start, now)
                )
                for tournament in queryset.order_by("scheduled_start", "pk")
            ]
        self.message_user(
            request,
            ngettext("Cloned %(count)d event.", "Cloned %(count)d events.", len(clones)) % {"count": len(clones)},
            messages.SUCCESS,
        )

    @admin.action(description=_("Cancel (roll back, refund everything)"), permissions=["run"])
    def cancel_rollback(self, request, queryset):
        return self._cancel(request, queryset, CancelMode.ROLLBACK)

    @admin.action(description=_("Cancel (roll forward)"), permissions=["run"])
    def cancel_roll_forward(self, request, queryset):
        return self._cancel(request, queryset, CancelMode.ROLL_FORWARD)

    def _cancel(self, request, queryset, mode: CancelMode):
        rollback = mode is CancelMode.ROLLBACK
        return self._confirm_then(
            request,
            queryset,
            action="cancel_rollback" if rollback else "cancel_roll_forward",
            title=_("Cancel and refund everything") if rollback else _("Cancel and roll the prize pool forward"),
            explanation=ROLLBACK_HELP if rollback else ROLL_FORWARD_HELP,
            form_class=CancelForm,
            perform=lambda tournament, data, now: tournament_cancel(
                tournament_id=tournament.pk, actor=request.user, reason=data["reason"], mode=mode, now=now
            ),
            done=lambda count: (
                ngettext(
                    "Cancelled %(count)d event; every entrant was refunded.",
                    "Cancelled %(count)d events; every entrant was refunded.",
                    count,
                )
                if rollback
                else ngettext(
                    "Cancelled %(count)d event; its prize pool was rolled forward.",
                    "Cancelled %(count)d events; their prize pools were rolled forward.",
                    count,
                )
            ),
        )

    @admin.action(description=_("Pause the clock"), permissions=["run"])
    def pause_clock(self, request, queryset):
        return self._confirm_then(
            request,
            queryset,
            action="pause_clock",
            title=_("Pause the clock"),
            explanation=PAUSE_HELP,
            form_class=PauseForm,
            perform=lambda tournament, data, now: tournament_pause(
                tournament_id=tournament.pk, actor=request.user, reason=data["reason"], now=now
            ),
            done=lambda count: ngettext("Paused %(count)d event.", "Paused %(count)d events.", count),
        )

    @admin.action(description=_("Roll back the hands in play"), permissions=["run"])
    def roll_back_hands(self, request, queryset):
        return self._confirm_then(
            request,
            queryset,
            action="roll_back_hands",
            title=_("Roll back the hands in play"),
            explanation=ROLL_BACK_HELP,
            form_class=RollBackForm,
            perform=lambda tournament, data, now: hands_roll_back(
                tournament_id=tournament.pk, table=data["table"], actor=request.user, reason=data["reason"], now=now
            ),
            done=lambda count: ngettext(
                "Rolled back the hands in play of %(count)d event.",
                "Rolled back the hands in play of %(count)d events.",
                count,
            ),
        )

    @admin.action(description=_("Resume the clock"), permissions=["run"])
    def resume_clock(self, request, queryset):
        now = timezone.now()
        resumed = 0
        for tournament in queryset.order_by("scheduled_start", "pk"):
            try:
                tournament_resume(tournament_id=tournament.pk, actor=request.user, now=now)
            except TournamentError as error:
                self.message_user(request, f"{tournament.name}: {error.message}", messages.ERROR)
            else:
                resumed += 1
        if resumed:
            message = ngettext("Resumed %(count)d event.", "Resumed %(count)d events.", resumed)
            self.message_user(request, message % {"count": resumed}, messages.SUCCESS)

    @admin.action(description=_("Postpone"), permissions=["run"])
    def postpone(self, request, queryset):
        if queryset.count() != 1:
            # One new start time means one event.
            self.message_user(request, _("Postpone one event at a time."), messages.ERROR)
            return None
        return self._confirm_then(
            request,
            queryset,
            action="postpone",
            title=_("Postpone"),
            explanation=POSTPONE_HELP,
            form_class=PostponeForm,
            perform=lambda tournament, data, now: tournament_postpone(
                tournament_id=tournament.pk,
                actor=request.user,
                new_start=data["new_start"],
                reason=data["reason"],
                now=now,
            ),
            done=lambda count: ngettext("Postponed %(count)d event.", "Postponed %(count)d events.", count),
        )

    def _confirm_then(self, request, queryset, *, action, title, explanation, form_class, perform, done):
        """Show the confirmation page asking for `form_class`; once it is posted
        valid, `perform` each selected event (each in its own transaction: one refusal
        leaves the others done) and return to the list with what happened."""
        form = form_class(request.POST if request.POST.get("post") == "yes" else None)
        events = list(queryset.order_by("scheduled_start", "pk"))
        if form.is_bound and form.is_valid():
            now = timezone.now()
            succeeded = 0
            for tournament in events:
                try:
                    perform(tournament, form.cleaned_data, now)
                except TournamentError as error:
                    self.message_user(request, f"{tournament.name}: {error.message}", messages.ERROR)
                else:
                    succeeded += 1
            if succeeded:
                self.message_user(request, done(succeeded) % {"count": succeeded}, messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "explanation": explanation,
            "form": form,
            "events": events,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": self.model._meta,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/tournaments/tournament_action_confirmation.html", context)
