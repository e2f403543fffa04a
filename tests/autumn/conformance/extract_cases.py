"""Extract the conformance cases of AUTUMN.md section 17 into ``cases.yaml``.

Usage::

    python tests/autumn/conformance/extract_cases.py PATH/TO/AUTUMN.md [-o OUT.yaml] [--check]

Without ``-o`` the YAML is written next to this script as ``cases.yaml``. With ``--check``
nothing is written; the exit status is 1 if the existing file differs from what the spec
yields (use it to see whether the data is stale).

Every field comes from the spec text. The only hand-written data are the ``CURATED_NOTES``
below (places where the spec's prose note contradicts its verified frames; the frames win).
Each case is validated while it is parsed (frame labels against the inputs, frame sizes,
legend coverage, JSON validity, ...), so a change in the spec's layout fails loudly instead
of producing wrong data.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

# Hand-curated remarks, keyed by case id. Keep them short and say why.
CURATED_NOTES: dict[str, str] = {
    "C31": (
        "The spec's prose note (first two draws mod 8 are 2 and 7; jade gets x=2, ruby "
        "x=7) contradicts the verified frame, which shows ruby (red) at x=2 and jade "
        "(green) at x=6. The frame was produced by the reference, so the frame wins."
    ),
    "C02": (
        "AUTUMN.md gives no frame block for C02; frame f0 here is built from the prose "
        "note (16x16 grid, a single black cell at x=15,y=0, every other cell white)."
    ),
}

KEY_ORDER = (
    "id", "title", "program", "seed", "trigger", "host_loop", "steps", "legend", "frames",
    "render_json", "evaluations", "trigger_states", "host_values", "error", "spec_note", "note",
)

CASE_HEAD = re.compile(r"^### (C\d\d) \u2014 (.*)$")
FENCE = re.compile(r"^```(\w*)\s*$")
SETUP = re.compile(
    r"^- Seed `(-?\d+)`; inputs per step: (.*?); host loop: (.*?)\."
    r"(?: Trigger condition: `([^`]*)`\.)?\s*$"
)
LEGEND_ITEM = re.compile(r"`(.)` = ([A-Za-z]+)")
EVAL_LINE = re.compile(r"^(.*?\S)\s+-> (.*)$")


class SpecFormatError(ValueError):
    pass


def _sections(lines: list[str]) -> list[tuple[str, str, list[str]]]:
    """Split section 17 into (id, title, body lines) per case."""
    start = next(i for i, l in enumerate(lines) if l.startswith("## 17."))
    end = next(i for i, l in enumerate(lines) if i > start and l.startswith("## "))
    out: list[tuple[str, str, list[str]]] = []
    cur: tuple[str, str, list[str]] | None = None
    for line in lines[start:end]:
        m = CASE_HEAD.match(line)
        if m:
            cur = (m.group(1), m.group(2), [])
            out.append(cur)
        elif cur is not None:
            cur[2].append(line)
    # Drop the trailing '---' separator after the last case.
    if out:
        body = out[-1][2]
        while body and body[-1].strip() in ("", "---"):
            body.pop()
    return out


def _blocks(body: list[str]) -> list[tuple[int, str, list[str]]]:
    """Fenced blocks as (index of the line before the opening fence, lang, lines)."""
    blocks = []
    i = 0
    while i < len(body):
        m = FENCE.match(body[i])
        if m:
            j = i + 1
            while not body[j].startswith("```"):
                j += 1
            blocks.append((i - 1, m.group(1), body[i + 1 : j]))
            i = j + 1
        else:
            i += 1
    return blocks


def _parse_inputs(text: str) -> list[list[str]]:
    if text.strip() == "(none)":
        return []
    groups = re.findall(r"`([^`]*)`", text)
    if not groups or re.sub(r"`[^`]*`", "", text).strip():
        raise SpecFormatError(f"cannot parse inputs: {text!r}")
    steps = []
    for g in groups:
        if g == ".":
            steps.append([])
            continue
        group = []
        for tok in g.split("+"):
            tok = tok.strip()
            if tok in ("L", "R", "U", "D") or re.fullmatch(r"C -?\d+ -?\d+", tok):
                group.append(tok)
            else:
                raise SpecFormatError(f"bad input token {tok!r} in {text!r}")
        steps.append(group)
    return steps


def _label_for(k: int, group: list[str]) -> str:
    return f"f{k}:" + ("+".join(t.replace(" ", "") for t in group) if group else ".")


def _parse_frames(block: list[str]) -> list[dict[str, Any]]:
    labels = block[0].split()
    frames = [{"label": lab, "rows": []} for lab in labels]
    for line in block[1:]:
        cols = line.split()
        if len(cols) != len(labels):
            raise SpecFormatError(f"frame row {line!r} has {len(cols)} columns, want {len(labels)}")
        for f, c in zip(frames, cols):
            f["rows"].append(c)
    return frames


def _parse_case(cid: str, title: str, body: list[str]) -> dict[str, Any]:
    case: dict[str, Any] = {"id": cid, "title": title}
    blocks = _blocks(body)
    # The program is the first block; it must be lisp and come before any bullet.
    before, lang, prog = blocks[0]
    if lang != "lisp":
        raise SpecFormatError(f"{cid}: first block is {lang!r}, not lisp")
    case["program"] = "\n".join(prog) + "\n"

    setup = [l for l in body if l.startswith("- Seed ")]
    if len(setup) != 1:
        raise SpecFormatError(f"{cid}: expected one setup line, got {setup}")
    m = SETUP.match(setup[0])
    if not m:
        raise SpecFormatError(f"{cid}: cannot parse setup line {setup[0]!r}")
    case["seed"] = int(m.group(1))
    case["trigger"] = m.group(4) or ""
    loop = m.group(3)
    if loop == "standard":
        case["host_loop"] = "standard"
    elif loop.startswith("**no render_all between steps**"):
        case["host_loop"] = "render_at_end"
    else:
        raise SpecFormatError(f"{cid}: unknown host loop {loop!r}")
    case["steps"] = _parse_inputs(m.group(2))

    notes = [l[len("- Note: ") :] for l in body if l.startswith("- Note: ")]
    if notes:
        case["spec_note"] = " ".join(notes)

    by_intro = {idx: (lang, lines) for idx, lang, lines in blocks[1:]}
    for idx, (_lang, lines) in sorted(by_intro.items()):
        intro = body[idx]
        if intro.startswith("- Expected frames (legend:"):
            legend = dict(LEGEND_ITEM.findall(intro))
            if not legend:
                raise SpecFormatError(f"{cid}: empty legend in {intro!r}")
            case["legend"] = legend
            case["frames"] = _parse_frames(lines)
        elif (mm := re.match(r"^- Expected exact `render_all\(\)` text for frame (\d+):$", intro)):
            if len(lines) != 1:
                raise SpecFormatError(f"{cid}: render_all block is not one line")
            json.loads(lines[0])  # must be valid JSON
            case.setdefault("render_json", {})[int(mm.group(1))] = lines[0]
        elif intro == "- Expected `evaluate_to_string` results at the end:":
            evals = []
            for line in lines:
                em = EVAL_LINE.match(line)
                if not em:
                    raise SpecFormatError(f"{cid}: cannot parse evaluation {line!r}")
                expr, res = em.group(1), em.group(2)
                er = re.fullmatch(r"raises an error \((.*)\)", res)
                if er:
                    evals.append({"expr": expr, "error": True, "reference_message": er.group(1)})
                else:
                    evals.append({"expr": expr, "result": res})
            case["evaluations"] = evals
        else:
            raise SpecFormatError(f"{cid}: block after unknown bullet {intro!r}")

    for line in body:
        if line.startswith("- Expected `get_trigger_state()` after each step: "):
            vals = line.split(": ", 1)[1].rstrip(".").split(", ")
            case["trigger_states"] = [{"True": True, "False": False}[v] for v in vals]
        elif line.startswith("- Expected error: "):
            em = re.fullmatch(r"- Expected error: step (\d+): (.*)", line)
            if not em:
                raise SpecFormatError(f"{cid}: cannot parse {line!r}")
            msg = em.group(2)
            # AUTUMN.md 15.2 / 18.4: exact message texts are not part of conformance, so the
            # harness only requires that the message names the variable involved.
            var = re.search(r"for variable '([^']+)'", msg)
            case["error"] = {
                "step": int(em.group(1)),
                "reference_message": msg,
                "message_contains": var.group(1) if var else "",
            }

    # Host values stated in the prose (C02).
    note = case.get("spec_note", "")
    hv: dict[str, Any] = {}
    if (bm := re.search(r'get_background\(\) = "([^"]+)"', note)):
        hv["background"] = bm.group(1)
    if (fm := re.search(r"get_frame_rate\(\) = (\d+)", note)):
        hv["frame_rate"] = int(fm.group(1))
    if (gm := re.search(r"grid is (\d+)x(\d+)", note)):
        hv["grid_size"] = int(gm.group(1))
    if hv:
        case["host_values"] = hv
    # C02 describes its only frame in prose.
    pm = re.search(
        r'grid is (\d+)x\1 .*? with a single (\w+) cell at x=(\d+),y=(\d+) and every other cell "(\w+)"',
        note,
    )
    if pm and "frames" not in case:
        n, colour, x, y, bg = int(pm.group(1)), pm.group(2), int(pm.group(3)), int(pm.group(4)), pm.group(5)
        legend = {".": bg, "x": colour}
        rows = ["".join("x" if (cx, cy) == (x, y) else "." for cx in range(n)) for cy in range(n)]
        case["legend"] = legend
        case["frames"] = [{"label": "f0", "rows": rows}]

    if cid in CURATED_NOTES:
        case["note"] = CURATED_NOTES[cid]
    _validate(case)
    return {k: case[k] for k in KEY_ORDER if k in case}


def _validate(case: dict[str, Any]) -> None:
    cid = case["id"]
    frames = case.get("frames", [])
    steps = case["steps"]
    if frames:
        sizes = {len(f["rows"]) for f in frames} | {len(r) for f in frames for r in f["rows"]}
        if len(sizes) != 1:
            raise SpecFormatError(f"{cid}: frames are not square and equal-sized: {sizes}")
        used = {ch for f in frames for r in f["rows"] for ch in r}
        if not used <= set(case["legend"]):
            raise SpecFormatError(f"{cid}: characters {used - set(case['legend'])} not in legend")
        if case["host_loop"] == "standard":
            want = ["f0"] + [_label_for(k, g) for k, g in enumerate(steps, 1)]
            if [f["label"] for f in frames] != want:
                raise SpecFormatError(f"{cid}: frame labels {[f['label'] for f in frames]} != {want}")
        else:
            if [f["label"] for f in frames] != ["f0", "final"]:
                raise SpecFormatError(f"{cid}: render_at_end wants frames f0 and final")
    for k in case.get("render_json", {}):
        if frames and not 0 <= k < len(frames):
            raise SpecFormatError(f"{cid}: render_json for frame {k} which does not exist")
        if k > len(steps):
            raise SpecFormatError(f"{cid}: render_json for frame {k} beyond the last step")
    if "trigger_states" in case and len(case["trigger_states"]) != len(steps):
        raise SpecFormatError(f"{cid}: {len(case['trigger_states'])} trigger states for {len(steps)} steps")
    if "error" in case and not 1 <= case["error"]["step"] <= len(steps):
        raise SpecFormatError(f"{cid}: error step out of range")


def extract(spec_text: str) -> list[dict[str, Any]]:
    lines = spec_text.split("\n")
    cases = [_parse_case(cid, title, body) for cid, title, body in _sections(lines)]
    ids = [c["id"] for c in cases]
    if ids != [f"C{i:02d}" for i in range(1, len(ids) + 1)]:
        raise SpecFormatError(f"case ids are not C01..Cnn in order: {ids}")
    return cases


# ---------------------------------------------------------------- YAML output


class _Dumper(yaml.SafeDumper):
    pass


def _str_repr(dumper: yaml.SafeDumper, s: str) -> yaml.ScalarNode:
    if "\n" in s:
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|")
    if s and not re.search(r"[\s'\"]", s) and not re.fullmatch(r"[LRUD]|\w+", s):
        # frame rows and legend keys: quote them all so the rows line up
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="'")
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)


_Dumper.add_representer(str, _str_repr)

# One step's inputs and lists of bools read better inline.


def _list_repr(dumper: yaml.SafeDumper, data: list) -> yaml.SequenceNode:
    flow = all(
        isinstance(x, bool) or (isinstance(x, str) and re.fullmatch(r"[LRUD]|C -?\d+ -?\d+", x))
        for x in data
    )
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _list_repr)

HEADER = """\
# Autumn conformance cases, extracted from AUTUMN.md section 17 by extract_cases.py.
# Regenerate with:  python tests/autumn/conformance/extract_cases.py PATH/TO/AUTUMN.md
# Do not edit by hand; put curated remarks in CURATED_NOTES in the script.
#
# Schema per case:
#   id, title         case id (C01..) and the spec's heading text
#   program           the program text, verbatim
#   seed, trigger     run_script arguments ("" = no trigger condition)
#   host_loop         standard: render after run_script, then step+render per input group;
#                     render_at_end: render after run_script, all steps, one render at the end
#   steps             one inner list per step; "L" "R" "U" "D" arrows, "C x y" click, [] none
#   legend, frames    frame rows are characters mapped to colour names by the legend;
#                     frame k is the host render after step k (f0 = first host render)
#   render_json       frame index -> exact render_all() text expected for that frame
#   evaluations       after the last frame: {expr, result} exact evaluate_to_string text,
#                     or {expr, error: true} (reference_message is informational only)
#   trigger_states    get_trigger_state() after each step
#   host_values       background / frame_rate / grid_size as stated by the spec
#   error             the step (1-based) that must raise AutumnRuntimeError
#   spec_note         the spec's prose note, verbatim; note = curated remark
"""


def dump(cases: list[dict[str, Any]]) -> str:
    body = yaml.dump(
        cases, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=4096, default_flow_style=False
    )
    text = HEADER + "\n" + body
    if yaml.safe_load(text) != cases:  # the YAML must round-trip exactly
        raise SpecFormatError("YAML output does not round-trip")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", type=Path, help="path of AUTUMN.md")
    ap.add_argument("-o", "--output", type=Path, default=Path(__file__).with_name("cases.yaml"))
    ap.add_argument("--check", action="store_true", help="only compare with the existing output")
    args = ap.parse_args(argv)
    text = dump(extract(args.spec.read_text(encoding="utf-8")))
    if args.check:
        same = args.output.exists() and args.output.read_text(encoding="utf-8") == text
        print(f"{args.output}: {'up to date' if same else 'STALE'}")
        return 0 if same else 1
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
