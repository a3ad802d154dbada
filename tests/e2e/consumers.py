"""What each consumer of a served list enables from a body, as its code does
it at the commits docs/consumers.md pins (FlagGems v5.0.2 30bfcc07,
vllm-plugin-FL d1653d9f, sglang-plugin-FL 4eb5b2a6): the decisions only, each
function citing the lines it follows. `registered` is the set of names the
library would register; each function returns the set it enables, or the
string "raises" where the consumer's call raises (nothing registered).

A consumer here ignores the HTTP status on purpose: that is the client the
fail-closed bodies are for."""
import csv
import io
import json

import yaml


def _names(v):
    return {str(x) for x in v}


# ---- FlagGems v5.0.2: src/flag_gems/config.py, __init__.py, runtime/register.py

def _flaggems_yaml(text, key):
    """config.py:49-92 load_enable_config_from_yaml: a body that does not
    parse, is empty or not a mapping gives []; a mapping gives
    list(set(data.get(key, []))), which raises TypeError for a value that is
    not iterable (true, a number, null)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    if data is None or not isinstance(data, dict):
        return []
    return list(set(data.get(key, [])))


def flaggems_enable(registered, unused):
    """enable(unused=...): register.py:94-104 keeps every name not in the
    exclusions (unknown names ignored)."""
    return set(registered) - _names(unused)


def flaggems_only_enable(registered, include):
    """only_enable(include=...): __init__.py:563-568, an empty include
    registers nothing; else only the names it holds."""
    if not include:
        return set()
    return set(registered) & _names(include)


def enable_unused_yaml(registered, body):
    """flag_gems.enable(unused="denylist.yaml")."""
    try:
        return flaggems_enable(registered, _flaggems_yaml(body, "exclude"))
    except TypeError:
        return "raises"


def only_enable_yaml(registered, body):
    """flag_gems.only_enable(include="allowlist.yaml")."""
    try:
        return flaggems_only_enable(registered, _flaggems_yaml(body, "include"))
    except TypeError:
        return "raises"


def lines(body):
    """The names of a text body as a script reads it: its non-comment,
    non-empty lines."""
    return [ln.strip() for ln in body.splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def csv_names(body):
    rows = list(csv.DictReader(io.StringIO("\n".join(lines(body)))))
    return [r.get("name") for r in rows if r.get("name")]


def json_names(body):
    """A script that reads `names` whatever the status: a deny-list's
    entries are objects, an allow-list's strings; no `names`: none."""
    try:
        data = json.loads(body)
    except ValueError:
        return []
    out = []
    for e in (data.get("names") or []) if isinstance(data, dict) else []:
        out.append(e.get("name") if isinstance(e, dict) else e)
    return [n for n in out if isinstance(n, str)]


# ---- the engine plugins: an env form's KEY=VALUE lines as the environment

def env_of(body):
    env = {}
    for ln in body.splitlines():
        if ln.startswith("#") or "=" not in ln:
            continue
        k, v = ln.split("=", 1)
        env[k.strip()] = v
    return env


def vllm_env(registered, body):
    """vllm-plugin-FL d1653d9f: vllm_fl/utils.py:84-93 use_flaggems (unset
    USE_FLAGGEMS: on; else on only for true/1), utils.py:118-139 the comma
    lists (both set: ValueError), worker/worker.py:231-262 (a whitelist:
    only_enable; a blacklist: enable(unused=); neither: enable(), every op;
    no platform blacklist assumed)."""
    env = env_of(body)
    value = env.get("USE_FLAGGEMS")
    if value is not None and value.lower() not in ("true", "1"):
        return set()
    white = env.get("VLLM_FL_FLAGOS_WHITELIST", "")
    black = env.get("VLLM_FL_FLAGOS_BLACKLIST", "")
    if white and black:
        return "raises"
    if white:
        wl = [op.strip() for op in white.split(",") if op.strip()]
        if wl:
            return flaggems_only_enable(registered, wl)
        return set(registered)
    bl = [op.strip() for op in black.split(",") if op.strip()] if black else []
    return flaggems_enable(registered, bl)


def sglang_env(registered, body):
    """sglang-plugin-FL 4eb5b2a6: sglang_fl/__init__.py:82-83 _parse_bool
    (empty: the default, on), :362-365 the switch, :380-406 the lists
    (stripped; both set: ValueError; a blacklist: enable(unused=); neither:
    enable(), every op; no YAML blacklist assumed)."""
    env = env_of(body)
    val = env.get("USE_FLAGGEMS", "1")
    on = val.strip().lower() in ("1", "true", "yes") if val else True
    if not on:
        return set()
    white = env.get("SGLANG_FL_FLAGOS_WHITELIST", "").strip()
    black = env.get("SGLANG_FL_FLAGOS_BLACKLIST", "").strip()
    if white and black:
        return "raises"
    wl = [x.strip() for x in white.split(",") if x.strip()]
    if wl:
        return flaggems_only_enable(registered, wl)
    bl = [x.strip() for x in black.split(",") if x.strip()]
    return flaggems_enable(registered, bl)


def vllm_yaml(registered, body):
    """vllm-plugin-FL d1653d9f vllm_fl/dispatch/config/utils.py:86-155: the
    file a mapping (else None), `flagos_blacklist` used only when a list
    (anything else, missing or malformed: no blacklist, every op)."""
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError:
        data = None
    bl = data.get("flagos_blacklist", []) if isinstance(data, dict) else None
    return flaggems_enable(registered, bl if isinstance(bl, list) else [])


# form -> (path and query, what the consumer does with the body)
FORMS = {
    "deny-yaml": ("/denylist?format=yaml", enable_unused_yaml),
    "deny-text": ("/denylist?format=text",
                  lambda r, b: flaggems_enable(r, lines(b))),
    "deny-csv": ("/denylist?format=csv",
                 lambda r, b: flaggems_enable(r, csv_names(b))),
    "deny-json": ("/denylist", lambda r, b: flaggems_enable(r, json_names(b))),
    "allow-yaml": ("/allowlist?format=yaml", only_enable_yaml),
    "allow-text": ("/allowlist?format=text",
                   lambda r, b: flaggems_only_enable(r, lines(b))),
    "allow-csv": ("/allowlist?format=csv",
                  lambda r, b: flaggems_only_enable(r, csv_names(b))),
    "allow-json": ("/allowlist", lambda r, b: flaggems_only_enable(r, json_names(b))),
    "vllm-env": ("/allowlist?format=vllm-env", vllm_env),
    "vllm-yaml": ("/allowlist?format=vllm-yaml", vllm_yaml),
    "sglang-env": ("/allowlist?format=sglang-env", sglang_env),
}
