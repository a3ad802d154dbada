"""web/openapi.json holds every handler to its word: GET /openapi.json serves
the file, every route api.c and web.c serve is described, and every described
path and method, called on a daemon that has screened, answers with a status
the description lists and a body its schema accepts."""
import json
import os
import re

import jsonschema
import pytest
import referencing
import referencing.jsonschema

from e2e_harness import ROOT

SPEC_PATH = os.path.join(ROOT, "web", "openapi.json")
SCOPE = {"runner__dtypes": "float32", "runner__classes": "same_shape"}   # F32_WHOLE
METHODS = ("get", "post", "delete", "put", "patch")
# embedded files ignore a query string (a cache-busting ?v=2 is harmless)
STATIC = ("/", "/index.html", "/app.js", "/style.css", "/openapi.json")


def load_spec():
    with open(SPEC_PATH) as f:
        return json.load(f)


SPEC = load_spec()
REGISTRY = referencing.Registry().with_resource(
    "urn:opscreen", referencing.Resource.from_contents(
        SPEC, default_specification=referencing.jsonschema.DRAFT202012))


def pointer(*parts):
    return "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def check(path, method, status, ctype, body):
    """Fails unless the answer is one the description gives for path/method."""
    op = SPEC["paths"][path][method]
    assert str(status) in op["responses"], (path, method, status, body[:300])
    content = op["responses"][str(status)].get("content", {})
    media = (ctype or "").split(";")[0].strip()
    assert media in content, (path, method, status, ctype, list(content))
    if media == "application/json":
        doc = json.loads(body)
        schema = {"$ref": "urn:opscreen#/" + pointer(
            "paths", path, method, "responses", str(status), "content", media,
            "schema")}
        jsonschema.Draft202012Validator(schema, registry=REGISTRY).validate(doc)
        return doc
    assert isinstance(body.decode("utf-8"), str)
    return body


@pytest.fixture(scope="module")
def d(tmp_path_factory, daemon_bin):
    from e2e_harness import F32, daemon_on_copy, shared_screen
    # two screens, /diff compares them: the session's of SCOPE, and one more
    # of twenty of its ops (F32: the host's scope narrowed, a screen of 176
    # cases instead of 415)
    src, _ = shared_screen(tmp_path_factory, "f32-same-shape", **SCOPE)
    dm = daemon_on_copy(tmp_path_factory.mktemp("openapi"), src, **F32).start()
    dm.wait_fingerprint()
    for _ in range(1):
        st, out = dm.post_run({})
        assert st == 202, out
        run = dm.wait_run(out["run"])
        assert run["state"] == "complete", run
    dm.run_id = out["run"]
    yield dm
    dm.stop()


def test_the_description_is_valid_and_served(d):
    assert SPEC["openapi"].startswith("3.1")
    for name, schema in SPEC["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(schema)
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            assert op["responses"], (path, method)
            for status, r in op["responses"].items():
                for media in r.get("content", {}).values():
                    jsonschema.Draft202012Validator.check_schema(media["schema"])
            for p in op.get("parameters", []):
                assert p["in"] in ("query", "path"), p
    st, ctype, body = d.get("/openapi.json")
    assert st == 200 and ctype == "application/json"
    assert json.loads(body) == SPEC
    check("/openapi.json", "get", st, ctype, body)


def routes_in_source():
    """(path template, method) for every route the handler serves."""
    with open(os.path.join(ROOT, "daemon", "api.c")) as f:
        api = f.read()
    handler = api[api.index("\nhandler(void *cls"):]
    handler = handler[:handler.index("\n}\n")]
    out = set()
    templates = {"/runs/": "/runs/{id}", "/ops/": "/ops/{name}", "/cases/": "/cases/{id}"}
    for m in re.finditer(r'(strn?cmp)\(url, "([^"]+)"(?:, \d+)?\)([^\n]*)', handler):
        kind, url, rest = m.groups()
        path = templates[url] if kind == "strncmp" else url
        below = re.search(r'ends_with\(url, "([^"]+)"\)', rest)   # a sub-resource
        if below:
            path += below.group(1)
        method = re.search(r'strcmp\(method, "([A-Z]+)"\)', rest)
        out.add((path, method.group(1).lower() if method else "get"))
    with open(os.path.join(ROOT, "daemon", "web.c")) as f:
        for url in re.findall(r'\{ "(/[^"]*)",', f.read()):
            out.add((url, "get"))
    return out


def test_every_route_the_handler_serves_is_described():
    routes = routes_in_source()
    assert len(routes) >= 16, routes
    described = {(p, m) for p, item in SPEC["paths"].items() for m in item
                 if m in METHODS}
    assert routes - described == set(), "served but not described"
    assert described - routes == set(), "described but not served"


def first(d, sql):
    import sqlite3
    db = sqlite3.connect(d.db)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.close()


def calls(d):
    """(described path, method, concrete request path, body, token) for every
    operation: no parameters, each documented value, and the errors."""
    case = first(d, "SELECT max(id) FROM cases")
    # a case whose repro reads its inputs from a file beside it
    filed = first(d, "SELECT max(case_id) FROM results WHERE repro_inputs IS NOT NULL")
    assert filed, "no repro of the screen has an inputs file"
    name = first(d, "SELECT name FROM verdicts ORDER BY name LIMIT 1")
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            if method != "get":
                continue
            concrete = path.replace("{id}", str(
                d.run_id if path.startswith("/runs") else filed
                if path.endswith("/inputs") else case)).replace("{name}", name)
            yield path, method, concrete, None, None
            for p in op.get("parameters", []):
                if p["in"] != "query":
                    continue
                s = p["schema"]
                values = s.get("enum") or [s.get("example", s.get("default", 1))]
                for v in values:
                    yield path, method, f"{concrete}?{p['name']}={v}", None, None
                yield path, method, f"{concrete}?{p['name']}=%ff", None, None
            yield path, method, concrete + "?nope=1", None, None
            if "{" in path:
                yield path, method, re.sub(r"\{[a-z]+\}", "999999", path), None, None
    yield "/runs/{id}", "get", "/runs/abc", None, None
    yield "/ops/{name}", "get", "/ops/" + "x" * 200, None, None
    yield "/allowlist", "get", "/allowlist?dtypes=float32&gpu=cpu&format=yaml", None, None
    yield "/allowlist", "get", "/allowlist?dtypes=nope", None, None
    yield "/allowlist", "get", "/allowlist?gpu=7", None, None
    yield "/runs", "post", "/runs", {}, None
    yield "/runs", "post", "/runs", {}, "wrong"
    yield "/runs", "post", "/runs", b"{", d.token
    yield "/runs", "post", "/runs", {"ops": ["no_such_op"]}, d.token
    yield "/runs", "post", "/runs", {"bogus": 1}, d.token
    yield "/runs", "post", "/runs", b"[" + b" " * 70000 + b"]", d.token
    yield "/runs", "post", "/runs", {"ops": ["add.Tensor"], "dtypes": ["float32"]}, d.token
    yield "/runs/{id}", "delete", "/runs/999999", None, d.token
    yield "/runs/{id}", "delete", f"/runs/{d.run_id}", None, d.token
    yield "/runs/{id}", "delete", f"/runs/{d.run_id}", None, None
    yield "/runs/{id}", "delete", "/runs/0", None, d.token


def test_every_answer_matches_the_description(d):
    seen = {}
    for path, method, concrete, body, token in calls(d):
        st, ctype, resp = d.request(method.upper(), concrete, body, token=token)
        check(path, method, st, ctype, resp)
        seen.setdefault((path, method), set()).add(st)
        if (path, method, st) == ("/runs", "post", 202):
            run = json.loads(resp)["run"]
            st, ctype, resp = d.request("DELETE", f"/runs/{run}", token=d.token)
            check("/runs/{id}", "delete", st, ctype, resp)
            seen.setdefault(("/runs/{id}", "delete"), set()).add(st)
    described = {(p, m) for p, item in SPEC["paths"].items() for m in item}
    assert described == set(seen), described ^ set(seen)
    # each operation was seen succeeding, and the errors were seen too
    for (path, method), statuses in seen.items():
        assert any(s < 300 for s in statuses), (path, method, statuses)
        if path not in STATIC:
            assert 400 in statuses, (path, method, statuses)
    assert {202, 400, 401, 413} <= seen[("/runs", "post")], seen[("/runs", "post")]
    assert {202, 401, 404, 409} <= seen[("/runs/{id}", "delete")]


def test_unknown_paths_and_methods_answer_the_error_schema(d):
    for method, path, status in [("GET", "/nope", 404), ("PUT", "/runs", 405),
                                 ("POST", "/allowlist", 405),
                                 ("DELETE", "/ops", 405)]:
        st, ctype, body = d.request(method, path, b"" if method != "GET" else None)
        assert st == status and ctype == "application/json", (method, path, st)
        schema = {"$ref": "urn:opscreen#/components/schemas/Error"}
        jsonschema.Draft202012Validator(schema, registry=REGISTRY).validate(
            json.loads(body))
