"""Schemathesis hooks for test/gateway/openapi-fuzz.response.test.ts, loaded through SCHEMATHESIS_HOOKS.

They keep the positive_data_acceptance check meaningful where the schema cannot say why the
gateway refuses a body that matches it (both refusals are in the NewPlant description)."""

import itertools

import schemathesis

_content_by_id: dict[int, tuple[object, object]] = {}
_fresh_ids = itertools.count(7_000_000_000_000_000_000)


def _carries_prototype_key(value: object) -> bool:
    if isinstance(value, list):
        return any(_carries_prototype_key(item) for item in value)
    if not isinstance(value, dict):
        return False
    constructor = value.get("constructor")
    return (
        "__proto__" in value
        or (isinstance(constructor, dict) and "prototype" in constructor)
        or any(_carries_prototype_key(item) for item in value.values())
    )


@schemathesis.hook
def filter_body(context, body):
    """`__proto__` and `constructor.prototype` keys are refused at any depth (400/4001)."""
    return not _carries_prototype_key(body)


@schemathesis.hook
def before_call(context, case, kwargs):
    """An id stored with another name or tag is refused (400/4009): such a body gets a fresh id.

    Ids seen first, boundaries included, are sent as generated; the same content again is a
    retry and keeps its id (200)."""
    body = case.body
    if not isinstance(body, dict) or type(body.get("id")) is not int:
        return
    content = (body.get("name"), body.get("tag"))
    plant_id = body["id"]
    while _content_by_id.setdefault(plant_id, content) != content:
        plant_id = next(_fresh_ids)
    if plant_id != body["id"]:
        body["id"] = plant_id
