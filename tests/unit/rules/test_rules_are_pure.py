"""The rules are plain Python (STYLE.md): importing them loads neither Django nor
any other part of the project. So are the deal calculators (deals/rules.py), which
may use the tournament rules."""

import json
import subprocess
import sys
from pathlib import Path

import tournaments.rules

PROJECT_ROOT = Path(__file__).resolve().parents[3]

IMPORT_EVERY_RULE = """
import importlib, json, pkgutil, sys
import tournaments.rules
rules = [f"tournaments.rules.{m.name}" for m in pkgutil.walk_packages(tournaments.rules.__path__)]
rules.append("deals.rules")
for name in rules:
    importlib.import_module(name)
print(json.dumps({"rules": rules, "modules": sorted(sys.modules)}))
"""


def project_packages() -> set[str]:
    return {path.parent.name for path in PROJECT_ROOT.glob("*/__init__.py")}


def is_forbidden(module: str) -> bool:
    top = module.split(".", maxsplit=1)[0]
    if top == "tournaments":
        return module != "tournaments" and not module.startswith("tournaments.rules")
    if top == "deals":
        return module not in {"deals", "deals.rules"}
    return top == "django" or top in project_packages()


def test_the_project_packages_are_found():
    assert {"tournaments", "wallet", "accounts", "lobby"} <= project_packages()


def test_the_rules_import_neither_django_nor_the_rest_of_the_project():
    result = subprocess.run(  # noqa: S603 - our own interpreter running a fixed snippet
        [sys.executable, "-c", IMPORT_EVERY_RULE],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    imported = json.loads(result.stdout)

    assert set(imported["rules"]) >= {
        "tournaments.rules.lifecycle",
        "tournaments.rules.payouts",
        "tournaments.rules.schedule",
        "deals.rules",
    }
    assert [module for module in imported["modules"] if is_forbidden(module)] == []


def test_the_forbidden_check_would_catch_django_and_project_apps():
    assert is_forbidden("django.db")
    assert is_forbidden("wallet.services")
    assert is_forbidden("tournaments.models")
    assert is_forbidden("deals.apps")
    assert not is_forbidden("deals.rules")
    assert not is_forbidden("tournaments.rules.payouts")
    assert not is_forbidden("tournaments")
    assert not is_forbidden("fractions")
    assert tournaments.rules.__doc__
