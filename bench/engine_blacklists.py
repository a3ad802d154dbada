"""An engine plugin's FlagGems op list against opscreen's measured lists.

    python3 bench/engine_blacklists.py --plugin LIST [--key KEY]
        [--kind blacklist|whitelist] [--label TEXT]
        [--allow allowlist.json|.yaml] [--deny denylist.yaml|.json]
        [--db opscreen.db[.xz]] [--run N] [--focus LIST]
        [--format text|markdown]

An engine plugin (sglang-plugin-FL, vllm-plugin-FL) hands FlagGems a list of
names: a blacklist goes to flag_gems.enable(unused=...), a whitelist to
flag_gems.only_enable(include=...). FlagGems matches those names against the
__name__ of the functions it registers, which are opscreen's enable names
(entries.name; the names of /allowlist and /denylist). This script puts the
two side by side and prints:

  - names the plugin disables that opscreen verified (allowed);
  - names the plugin disables that opscreen denies or withholds;
  - names the plugin lists that the screened FlagGems does not register;
  - names the plugin leaves enabled that opscreen denies (reason, severity)
    or withholds;
  - counts, and one "summary:" line.

LIST is a file (one name a line, "- name" YAML items, commas, '#' comments;
'-' reads stdin) or a comma list. With --key, only that key's list is read
from the file: a YAML block list ("flagos_blacklist:" then "- name" lines)
or an inline value ("SGLANG_FL_FLAGOS_BLACKLIST: \"a,b\"", "KEY=a,b").

opscreen's side is its served lists, which are fail closed: a name is
allowed only when every key x dtype of it was verified; it is denied when
one is broken or a hazard; otherwise it is withheld (inconclusive, or never
judged), and a withheld name is not allowed either. --allow takes the
/allowlist JSON (names and withheld) or YAML (include:), --deny the
/denylist YAML (exclude:) or JSON. An error body (the 503 served before a
complete screen) is refused, not read as a list. The registered names are
the union of the three lists, which partition the registered table (a YAML
allow-list does not name the withheld: give the JSON one, or --db).

--db (sqlite, or .xz) adds each denied name's reason, severity and failing
dtypes from the verdicts of a run (--run; default the newest complete full
run, else the newest complete run), and lists the names that run judges
otherwise than the served lists. Given alone, the lists are computed from
the store with the strict rule of daemon/rollup.c (less its check of dtypes
with cases but no verdict) and said to be computed, not served. --focus prints chosen names one by one with the evidence's
detail. Standard library only.
"""
import argparse
import datetime
import json
import lzma
import os
import re
import sqlite3
import sys
import tempfile

SEV_ORDER = ["critical", "loud", "numerics", "hazard", ""]
SEV_RANK = {s: i for i, s in enumerate(SEV_ORDER)}


# ---- the plugin's list ----------------------------------------------------

def _strip(tok):
    tok = tok.split("#", 1)[0].strip()
    if tok.startswith("- "):
        tok = tok[2:].strip()
    return tok.strip().strip("\"'").strip()


def _split(value):
    value = value.split("#", 1)[0].strip().strip("\"'")
    value = value.strip("[]")
    return [t for t in (_strip(x) for x in value.split(",")) if t]


def parse_plugin(arg, key=None):
    """Return (names in order, duplicates removed; source text)."""
    if arg == "-":
        text, src = sys.stdin.read(), "stdin"
    elif os.path.isfile(arg):
        with open(arg, encoding="utf-8") as f:
            text, src = f.read(), arg
    else:
        return list(dict.fromkeys(_split(arg))), "command line"
    names = []
    if key:
        lines = text.splitlines()
        found = False
        for i, line in enumerate(lines):
            m = re.match(r"^(\s*)(?:export\s+)?%s\s*[:=]\s*(.*)$" %
                         re.escape(key), line)
            if not m:
                continue
            found = True
            indent, rest = len(m.group(1)), m.group(2)
            if rest.split("#", 1)[0].strip():
                names += _split(rest)
                continue
            for nxt in lines[i + 1:]:
                s = nxt.strip()
                if not s or s.startswith("#"):
                    continue
                if s.startswith("- "):
                    t = _strip(s)
                    if t:
                        names.append(t)
                    continue
                if len(nxt) - len(nxt.lstrip()) <= indent:
                    break
        if not found:
            sys.exit(f"engine_blacklists: no key {key!r} in {src}")
    else:
        for line in text.splitlines():
            s = line.split("#", 1)[0].strip()
            if not s:
                continue
            if s.startswith("- "):
                s = s[2:]
            names += _split(s)
    return list(dict.fromkeys(names)), src


# ---- opscreen's lists ------------------------------------------------------

def _yaml_items(text, key):
    out, on = [], False
    for line in text.splitlines():
        if re.match(r"^%s:\s*(\[\])?\s*$" % key, line):
            on = True
            continue
        if on:
            if line.startswith("- "):
                out.append(_strip(line))
            elif line.strip() and not line.startswith("#"):
                on = False
    return out


def _header(text):
    return [l[2:] for l in text.splitlines() if l.startswith("# ")]


def _refuse(path, text):
    """An error body (a 503 before any complete screen, a 400) is no list:
    comparing against it would read "nothing measured" as a measurement."""
    if text.lstrip().startswith("{"):
        d = json.loads(text)
        if "error" in d:
            sys.exit("engine_blacklists: %s is an error body (HTTP %s: %s); "
                     "no list to compare" % (path, d.get("status", "?"),
                                             d["error"]))
        return d
    m = re.search(r"^# opscreen \w+: (HTTP \d+: .*)$", text, re.M)
    if m:
        sys.exit("engine_blacklists: %s is an error body (%s); no list to "
                 "compare" % (path, m.group(1)))
    return None


def load_allow(path):
    """Return (allowed, {withheld: reason} or None when the body does not
    say, provenance lines)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    d = _refuse(path, text)
    if d is not None:
        withheld = {}
        for w in d.get("withheld", []):
            rs = w.get("reasons", [])
            r = rs[0] if rs else {}
            where = " ".join(str(r[k]) for k in ("key", "dtype")
                             if r.get(k))
            withheld[w["name"]] = r.get("reason", "?") + (
                " (%s)" % where if where else "")
        prov = []
        for r in d.get("runs", []):
            prov.append("device %s: run %s completed %s; %s %s source %s; "
                        "torch %s; triton %s; cuda %s; driver %s; gpu %s "
                        "uuid %s" % (
                            r.get("device"), r.get("run"), r.get("completed"),
                            r.get("library"), r.get("library_version"),
                            r.get("library_hash"), r.get("torch"),
                            r.get("triton"), r.get("cuda"), r.get("driver"),
                            r.get("gpu_name"), r.get("gpu_uuid")))
        prov.append("policy %s, mode %s, dtypes %s, stale %s" % (
            d.get("policy"), d.get("mode"), d.get("dtypes"), d.get("stale")))
        return list(d.get("names", [])), withheld, prov
    # YAML and text bodies do not list the withheld names (None: unknown)
    if re.search(r"^include:", text, re.M):
        return _yaml_items(text, "include"), None, _header(text)
    return [l.strip() for l in text.splitlines()
            if l.strip() and not l.startswith("#")], None, _header(text)


def load_deny(path):
    """Return ({denied: (severity, reason) or None}, provenance lines)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    d = _refuse(path, text)
    if d is not None:
        out = {}
        for n in d.get("names", []):
            if isinstance(n, str):
                out[n] = None
            else:
                sev = n.get("severity") or (
                    "hazard" if n.get("verdict") == "hazard" else "")
                out[n["name"]] = (sev, n.get("reason") or "")
        return out, []
    if re.search(r"^exclude:", text, re.M):
        return {n: None for n in _yaml_items(text, "exclude")}, _header(text)
    return {l.strip(): None for l in text.splitlines()
            if l.strip() and not l.startswith("#")}, _header(text)


class Db:
    """A store's verdicts: per name, the strict state and the evidence."""

    def __init__(self, path, run=None):
        self.tmp = None
        if path.endswith(".xz"):
            fd, self.tmp = tempfile.mkstemp(suffix=".db")
            with lzma.open(path) as src, os.fdopen(fd, "wb") as dst:
                while True:
                    b = src.read(1 << 20)
                    if not b:
                        break
                    dst.write(b)
            path = self.tmp
        self.c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        if run is None:
            row = self.c.execute(
                "SELECT id FROM runs WHERE state='complete' "
                "ORDER BY full DESC, id DESC LIMIT 1").fetchone()
            if row is None:
                self.close()
                sys.exit("engine_blacklists: no complete run in the database")
            run = row[0]
        self.run = run
        self.full = self.c.execute("SELECT full FROM runs WHERE id=?",
                                   (run,)).fetchone()[0]
        cols = {r[1] for r in self.c.execute("PRAGMA table_info(verdicts)")}
        self.has_sev = "severity" in cols
        self.fp = self.c.execute(
            "SELECT f.library, f.library_version, f.library_hash, f.torch, "
            "f.triton, f.cuda, f.driver, f.gpu_name, f.gpu_uuid, "
            "r.finished FROM run_devices d JOIN fingerprints f ON "
            "f.id = d.fingerprint_id JOIN runs r ON r.id = d.run_id "
            "WHERE d.run_id=? ORDER BY d.device LIMIT 1", (run,)).fetchone()
        self.names = {}
        for name, key, screened in self.c.execute(
                "SELECT name, key, screened FROM entries WHERE run_id=?",
                (run,)):
            n = self.names.setdefault(name, {"keys": {}, "bad": [],
                                             "inconcl": [], "verified": 0})
            n["keys"][key] = {"screened": screened, "rows": 0}
        sev = "severity" if self.has_sev else "''"
        for (name, key, dtype, verdict, reason, detail,
             severity) in self.c.execute(
                "SELECT name, key, dtype, verdict, reason, detail, %s "
                "FROM verdicts WHERE run_id=?" % sev, (run,)):
            n = self.names.setdefault(name, {"keys": {}, "bad": [],
                                             "inconcl": [], "verified": 0})
            k = n["keys"].setdefault(key, {"screened": 1, "rows": 0})
            if dtype != "any":
                k["rows"] += 1
            if verdict == "verified":
                n["verified"] += 1
            elif verdict == "inconclusive":
                n["inconcl"].append((key, dtype, reason))
            else:
                if verdict == "hazard":
                    s = "hazard"
                elif not self.has_sev:
                    s = ""      # a store from before severities
                else:
                    s = severity or "critical"  # daemon: unknown = critical
                n["bad"].append((s, key, dtype, verdict, reason, detail))

    def state(self, name):
        n = self.names.get(name)
        if n is None:
            return None
        if n["bad"]:
            return "denied"
        if n["inconcl"] or any(not k["screened"] or k["rows"] == 0
                               for k in n["keys"].values()):
            return "withheld"
        return "allowed" if n["verified"] else "withheld"

    def evidence(self, name):
        """(severity, reason, key, dtype, n bad rows, their dtypes) of a
        denied name: the evidence is a row of the worst severity."""
        n = self.names.get(name)
        if not n or not n["bad"]:
            return None
        bad = sorted(n["bad"], key=lambda b: (SEV_RANK.get(b[0], 9), b[1],
                                              b[2]))
        s, key, dtype, verdict, reason, detail = bad[0]
        dtypes = sorted({b[2] for b in bad})
        return s, reason, key, dtype, len(bad), dtypes, detail

    def provenance(self):
        if not self.fp:
            return ["run %s" % self.run]
        lib, ver, h, torch, triton, cuda, drv, gpu, uuid, fin = self.fp
        when = (datetime.datetime.fromtimestamp(
            fin, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            if fin else "?")
        return ["run %s (%s) completed %s; %s %s source %s; torch %s; "
                "triton %s; cuda %s; driver %s; gpu %s uuid %s%s" % (
                    self.run, "full" if self.full else
                    "restricted: serves no list", when, lib, ver, h, torch,
                    triton, cuda, drv, gpu, uuid,
                    "" if self.has_sev else "; no severities in this store")]

    def close(self):
        self.c.close()
        if self.tmp:
            os.unlink(self.tmp)
            self.tmp = None


# ---- the comparison ---------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plugin", required=True,
                    help="file of names, '-' for stdin, or a comma list")
    ap.add_argument("--key", help="read only this key's list from the file")
    ap.add_argument("--kind", choices=["blacklist", "whitelist"],
                    default="blacklist")
    ap.add_argument("--label", help="a name for the plugin's list")
    ap.add_argument("--allow", help="opscreen's /allowlist (JSON or YAML)")
    ap.add_argument("--deny", help="opscreen's /denylist (YAML or JSON)")
    ap.add_argument("--db", help="an opscreen store (sqlite, or .xz)")
    ap.add_argument("--run", type=int, help="the store's run (default: the "
                    "newest complete full run, else the newest complete)")
    ap.add_argument("--format", choices=["text", "markdown"], default="text")
    ap.add_argument("--focus", help="names to show one by one (a file or a "
                    "comma list): the plugin's and opscreen's state, and the "
                    "store's evidence with its detail")
    a = ap.parse_args()
    if not a.db and not (a.allow and a.deny):
        ap.error("give --allow and --deny, or --db")

    plugin, src = parse_plugin(a.plugin, a.key)
    label = a.label or (src + (":" + a.key if a.key else ""))
    db = Db(a.db, a.run) if a.db else None
    try:
        compare(a, plugin, label, db)
    finally:
        if db:
            db.close()


def compare(a, plugin, label, db):
    prov, notes = [], []
    if a.allow:
        allowed, withheld, p = load_allow(a.allow)
        denied, p2 = load_deny(a.deny)
        if withheld is None:
            withheld = {}
            if db:
                for n in db.names:
                    if n not in allowed and n not in denied:
                        withheld[n] = ("on neither served list (store: %s)"
                                       % db.state(n))
                notes.append("the allow-list body does not list withheld "
                             "names: the store's names on neither list are "
                             "counted as withheld")
            else:
                notes.append("the allow-list body does not list withheld "
                             "names: a withheld name counts as not "
                             "registered here (give the JSON allow-list or "
                             "--db)")
        prov += ["allowlist: " + x for x in p]
        prov += ["denylist: " + x for x in p2]
        source = "served"
    else:
        allowed, withheld, denied = [], {}, {}
        for name in db.names:
            st = db.state(name)
            if st == "allowed":
                allowed.append(name)
            elif st == "denied":
                denied[name] = None
            else:
                n = db.names[name]
                withheld[name] = (n["inconcl"][0][2] if n["inconcl"]
                                  else "never judged")
        source = "computed from the store (strict rule), not served"
    if db:
        prov += ["store: " + x for x in db.provenance()]
    allowed = set(allowed)
    registered = allowed | set(withheld) | set(denied)
    differ = []
    if db and a.allow:
        dbreg = set(db.names)
        if dbreg != registered:
            notes.append("the store's registered names differ from the "
                         "lists': %d only in the lists, %d only in the store"
                         % (len(registered - dbreg), len(dbreg - registered)))
        for n in sorted(registered):
            served = ("allowed" if n in allowed else "withheld"
                      if n in withheld else "denied")
            st = db.state(n)
            if st != served:
                differ.append((n, served, st or "not registered"))
        if differ:
            notes.append("the store's run judges %d registered names "
                         "otherwise than the served lists (listed last)"
                         % len(differ))

    def deny_info(name):
        """(severity, reason, evidence text) for a denied name."""
        ev = db.evidence(name) if db else None
        if ev:
            s, reason, key, dtype, nbad, dtypes, _ = ev
            return s, reason, "%s %s; %d broken/hazard key x dtype%s (%s)" % (
                key, dtype, nbad, "" if nbad == 1 else "s", ",".join(dtypes))
        served = denied.get(name)
        if served:
            return served[0], served[1], "served JSON"
        if db:
            st = db.state(name)
            return "", "", ("store: %s in run %d" % (st, db.run)
                            if st else "store: not registered")
        return "", "", ""

    pl = plugin
    not_reg = [n for n in pl if n not in registered]
    in_list = set(pl) & registered
    if a.kind == "blacklist":
        disabled, enabled = in_list, registered - in_list
    else:
        enabled, disabled = in_list, registered - in_list
    groups = {
        "disabled_allowed": sorted(disabled & allowed),
        "disabled_withheld": sorted(disabled & set(withheld)),
        "disabled_denied": sorted(disabled & set(denied)),
        "enabled_denied": sorted(enabled & set(denied)),
        "enabled_withheld": sorted(enabled & set(withheld)),
        "enabled_allowed": sorted(enabled & allowed),
    }

    def sev_counts(names):
        c = {}
        for n in names:
            s = deny_info(n)[0] or "n/a"
            c[s] = c.get(s, 0) + 1
        order = SEV_ORDER[:-1] + ["n/a"]
        return ", ".join("%s %d" % (s, c[s]) for s in order if s in c)

    def by_sev(names):
        return sorted(names, key=lambda n: (SEV_RANK.get(deny_info(n)[0], 9),
                                            n))

    md = a.format == "markdown"
    out = []
    w = out.append
    verb = "disables" if a.kind == "blacklist" else "enables"
    w(("### " if md else "== ") + "%s (%s, %d names)" % (label, a.kind,
                                                        len(pl)))
    w("")
    w("opscreen lists: %s; fail closed (withheld names are not allowed)."
      % source)
    for p in prov:
        w(("- " if md else "  ") + p)
    for n in notes:
        w(("- note: " if md else "  note: ") + n)
    w("")
    rows = [
        ("names in the plugin's list", len(pl)),
        ("not registered by the screened FlagGems", len(not_reg)),
        ("registered", len(in_list)),
        ("registered names the plugin %s" % verb, len(
            disabled if a.kind == "blacklist" else enabled)),
        ("plugin disables, opscreen allowed (verified)",
         len(groups["disabled_allowed"])),
        ("plugin disables, opscreen withheld",
         len(groups["disabled_withheld"])),
        ("plugin disables, opscreen denied",
         len(groups["disabled_denied"])),
        ("plugin leaves enabled, opscreen denied",
         len(groups["enabled_denied"])),
        ("plugin leaves enabled, opscreen withheld",
         len(groups["enabled_withheld"])),
        ("plugin leaves enabled, opscreen allowed",
         len(groups["enabled_allowed"])),
        ("registered names (allowed + withheld + denied)", len(registered)),
    ]
    if md:
        w("| count | n |")
        w("|---|---|")
        for k, v in rows:
            w("| %s | %d |" % (k, v))
    else:
        for k, v in rows:
            w("  %-52s %4d" % (k, v))
    if groups["disabled_denied"]:
        w(("" if md else "  ") + "plugin disables, opscreen denied, by "
          "severity: " + sev_counts(groups["disabled_denied"]))
    if groups["enabled_denied"]:
        w(("" if md else "  ") + "plugin leaves enabled, opscreen denied, by "
          "severity: " + sev_counts(groups["enabled_denied"]))
    w("")

    def section(title, names, cols):
        w(("#### " if md else "-- ") + "%s: %d" % (title, len(names)))
        if not names:
            w("")
            return
        if md:
            w("| " + " | ".join(c[0] for c in cols) + " |")
            w("|" + "---|" * len(cols))
            for n in names:
                w("| " + " | ".join(str(c[1](n)) for c in cols) + " |")
        else:
            for n in names:
                w("  " + "  ".join(str(c[1](n)) for c in cols).rstrip())
        w("")

    name_col = ("name", lambda n: "`%s`" % n if md else "%-34s" % n)
    sev_col = ("severity", lambda n: (deny_info(n)[0] or "-")
               if md else "%-9s" % (deny_info(n)[0] or "-"))
    rea_col = ("reason", lambda n: (deny_info(n)[1] or "-")
               if md else "%-19s" % (deny_info(n)[1] or "-"))
    ev_col = ("evidence (store)", lambda n: deny_info(n)[2] or "-")
    wh_col = ("why withheld", lambda n: withheld.get(n, ""))

    def db_col(n):
        st = db.state(n) if db else None
        return st or "-"
    dbst_col = ("store says", db_col)

    section("plugin disables, opscreen allowed (verified on this GPU)",
            groups["disabled_allowed"],
            [name_col] + ([dbst_col] if db else []))
    section("plugin disables, opscreen denied", by_sev(
        groups["disabled_denied"]), [name_col, sev_col, rea_col, ev_col])
    section("plugin disables, opscreen withheld", groups["disabled_withheld"],
            [name_col, wh_col])
    section("not registered by the screened FlagGems", not_reg, [name_col])
    section("plugin leaves enabled, opscreen denied", by_sev(
        groups["enabled_denied"]), [name_col, sev_col, rea_col, ev_col])
    section("plugin leaves enabled, opscreen withheld",
            groups["enabled_withheld"], [name_col, wh_col])
    if a.focus:
        focus, _ = parse_plugin(a.focus)
        w(("#### " if md else "-- ") + "focus names: %d" % len(focus))
        if md:
            w("| name | plugin | opscreen | severity | reason | evidence "
              "(store) | detail |")
            w("|---|---|---|---|---|---|---|")
        for n in focus:
            ps = ("not registered" if n not in registered else
                  "enabled" if n in enabled else "disabled")
            os_ = ("allowed" if n in allowed else "withheld" if n in withheld
                   else "denied" if n in denied else "-")
            sev, rea, evd = deny_info(n) if n in denied else ("", "", "")
            ev = db.evidence(n) if db and n in denied else None
            det = " ".join((ev[6] if ev else withheld.get(n, "")).split())
            det = det[:110] + ("..." if len(det) > 110 else "")
            if md:
                w("| `%s` | %s | %s | %s | %s | %s | %s |" % (
                    n, ps, os_, sev or "-", rea or "-", evd or "-",
                    det.replace("|", "/") or "-"))
            else:
                w("  %-22s %-14s %-8s %-9s %-19s %s" % (
                    n, ps, os_, sev or "-", rea or "-", evd or "-"))
                if det:
                    w("  %-22s %s" % ("", det))
        w("")
    if differ:
        lst = set(pl)
        w(("#### " if md else "-- ") + "served lists and the store's run "
          "disagree: %d" % len(differ))
        if md:
            w("| name | served | store | in the plugin's list |")
            w("|---|---|---|---|")
        for n, served, st in differ:
            inl = "yes" if n in lst else "no"
            w(("| `%s` | %s | %s | %s |" if md else "  %-34s %-9s %-9s %s")
              % (n, served, st, inl))
        w("")
    w("summary: label=%s kind=%s listed=%d not_registered=%d "
      "disabled_allowed=%d disabled_withheld=%d disabled_denied=%d "
      "enabled_denied=%d enabled_withheld=%d enabled_allowed=%d "
      "registered=%d" % (
          label.replace(" ", "_"), a.kind, len(pl), len(not_reg),
          len(groups["disabled_allowed"]), len(groups["disabled_withheld"]),
          len(groups["disabled_denied"]), len(groups["enabled_denied"]),
          len(groups["enabled_withheld"]), len(groups["enabled_allowed"]),
          len(registered)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
