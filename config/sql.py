"""Written-out SQL for the hot paths (registration, the ledger, the clock): rows
read into models, and rows written in one INSERT or UPDATE, without the ORM's
query building.

Both speak the SQL of PostgreSQL and of the embedded SQLite alike; values pass
through the fields' own preparation and the backend's converters, so a model read
here is the one the ORM would have read.
"""

from collections.abc import Sequence
from functools import cache

from django.db import connection
from django.db.models import Field, Model
from django.db.models.base import DEFERRED


@cache
def _reading(model: type[Model], fields: tuple[str, ...], vendor: str) -> tuple[str, list[int], list]:
    """The columns to SELECT for `fields` (in the model's order, as from_db takes
    them), each one's place among the model's concrete fields, and the backend's
    converters by column (none on PostgreSQL for the fields read here)."""
    wanted = set(fields)
    concrete = model._meta.concrete_fields
    chosen = [(place, field) for place, field in enumerate(concrete) if field.name in wanted or field.attname in wanted]
    if len(chosen) != len(wanted):
        raise ValueError(f"{model.__name__} has no concrete fields {sorted(wanted)}")
    converters = []
    for index, (_place, field) in enumerate(chosen):
        column = field.get_col(model._meta.db_table)
        found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        if found:
            converters.append((index, column, found))
    return ", ".join(field.column for _place, field in chosen), [place for place, _field in chosen], converters


def columns_of(model: type[Model], fields: Sequence[str]) -> str:
    """The column list that models_read expects its SELECT (or RETURNING) to give,
    for a statement written once."""
    return _reading(model, tuple(fields), connection.vendor)[0]


def models_read(model: type[Model], fields: Sequence[str], sql: str, params: Sequence) -> list:
    """Instances of `model` from `sql`, whose columns are columns_of(model, fields);
    the other fields deferred, as QuerySet.only() would leave them."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [model_from_row(model, fields, row) for row in rows]


def model_from_row(model: type[Model], fields: Sequence[str], row: Sequence):
    """The instance of `model` in `row`, whose values are columns_of(model, fields)."""
    _columns, places, converters = _reading(model, tuple(fields), connection.vendor)
    if converters:
        row = list(row)
        for index, column, functions in converters:
            for function in functions:
                row[index] = function(row[index], column, connection)
    values = [DEFERRED] * len(model._meta.concrete_fields)
    for place, value in zip(places, row, strict=True):
        values[place] = value
    instance = model(*values)
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance


@cache
def _writing(model: type[Model], fields: tuple[str, ...], vendor: str) -> tuple[str, str, list]:
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    return quote(meta.db_table), ", ".join(quote(column.column) for column in columns), columns


def rows_insert(objects: Sequence[Model], fields: tuple[str, ...], *, returning: str = "") -> list[tuple]:
    """INSERT the unsaved `objects` (of one model, every field in `fields` set) in one
    statement; with `returning`, (id, that column) of each row. The ORM's
    bulk_create took about 0.4 ms of CPU per call on the registration path, this
    about 0.1 ms."""
    table, names, columns = _writing(type(objects[0]), fields, connection.vendor)
    row = f"({', '.join(['%s'] * len(columns))})"
    sql = f"INSERT INTO {table} ({names}) VALUES {', '.join([row] * len(objects))}"  # noqa: S608 (names from the model, placeholders)
    params = [
        column.get_db_prep_save(getattr(obj, column.attname), connection) for obj in objects for column in columns
    ]
    with connection.cursor() as cursor:
        if not returning:
            cursor.execute(sql, params)
            return []
        cursor.execute(f"{sql} RETURNING id, {connection.ops.quote_name(returning)}", params)
        return cursor.fetchall()


def row_update(instance: Model, fields: Sequence[str]) -> None:
    """save(update_fields=fields), for a row known to exist: one UPDATE of those
    columns (auto_now ones stamped), without the ORM's query building."""
    table, _names, columns = _writing(type(instance), tuple(fields), connection.vendor)
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(column.column)} = %s" for column in columns)
    params = [column.get_db_prep_save(column.pre_save(instance, add=False), connection) for column in columns]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {sets} WHERE {quote(instance._meta.pk.column)} = %s",  # noqa: S608 (names from the model)
            [*params, instance.pk],
        )


def rows_update(objects: Sequence[Model], fields: Sequence[str]) -> None:
    """bulk_update(objects, fields) in one UPDATE (a CASE on the primary key per
    column), without the ORM's expressions: about a tenth of its CPU for a few rows."""
    for start in range(0, len(objects), UPDATE_BATCH):
        _rows_update(objects[start : start + UPDATE_BATCH], fields)


UPDATE_BATCH = 500  # rows an UPDATE: well inside SQLite's limit on parameters


def _rows_update(objects: Sequence[Model], fields: Sequence[str]) -> None:
    table, _names, columns = _writing(type(objects[0]), tuple(fields), connection.vendor)
    quote = connection.ops.quote_name
    pk = quote(objects[0]._meta.pk.column)
    cases = " ".join(["WHEN %s THEN %s"] * len(objects))
    sets, params = [], []
    for column in columns:
        sets.append(f"{quote(column.column)} = {_typed(f'CASE {pk} {cases} END', column)}")
        for obj in objects:
            params += [obj.pk, column.get_db_prep_save(getattr(obj, column.attname), connection)]
    where = ", ".join(["%s"] * len(objects))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {', '.join(sets)} WHERE {pk} IN ({where})",  # noqa: S608 (names from the model, placeholders)
            [*params, *(obj.pk for obj in objects)],
        )


def _typed(sql: str, column: Field) -> str:
    # PostgreSQL types a CASE of parameters as text; the ORM casts it the same way.
    if connection.features.requires_casted_case_in_updates:
        return f"CAST({sql} AS {column.cast_db_type(connection)})"
    return sql
