"""Rule checks for track pieces on square fields (MetiKoro's), registered on `checks.CHECKS`.

In: a `CheckContext` and a rule's `args` (see checks.py). Out: `Failure`s: lines that are
not well formed, pieces whose lines differ from the table, symmetries that are wrong, a
board whose fields do not assemble as the data says.
"""
from __future__ import annotations

from collections.abc import Iterable

from ..guard import shorten
from .checks import QUARTER, SYMBOLS, Failure, _list_of, register, selected

# what a selection must give (from the game's data)
LINE = {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "string"},
        "description": "[from, to, kind]"}
TRACK_LINE = {"type": "array", "minItems": 3, "maxItems": 3,
              "prefixItems": [{"enum": list("NESW")}, {"enum": list("NESWC")},
                              {"enum": ["straight", "arc", "stop", "bounce"]}],
              "description": "[from, to, kind]: edges N, E, S, W, the centre C; straight, arc, stop or bounce"}
SQUARE_ROWS = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1},
               "description": "rows of field symbols (text), as many rows as each has fields"}


# ---- track pieces on square fields (MetiKoro) -----------------------------------------
# A line is [from, to, kind]: edges N, E, S, W and the centre C. straight joins opposite
# edges, arc neighbouring edges, stop runs from an edge to C, bounce returns out of its
# own edge (to = from).
EDGES = "NESW"


def _line_problem(line) -> str | None:
    """Why a line is not well formed, or None."""
    if not isinstance(line, (list, tuple)) or len(line) != 3 or not all(isinstance(x, str) for x in line):
        return f"{shorten(repr(line))} is not [from, to, kind]"
    a, b, kind = line
    if a not in EDGES:
        return f"{a}-{b} {kind}: it must start at an edge (N, E, S, W)"
    if kind in ("straight", "arc"):
        if b not in EDGES or a == b:
            return f"{a}-{b} {kind}: it must join two different edges"
        opposite = (EDGES.index(a) - EDGES.index(b)) % 4 == 2
        if opposite != (kind == "straight"):
            return f"{a}-{b} {kind}: {a} and {b} are {'opposite' if opposite else 'neighbouring'} edges, " \
                   f"so it is {'a straight' if opposite else 'an arc'}"
    elif kind == "stop":
        if b != "C":
            return f"{a}-{b} stop: a stop runs to the centre C"
    elif kind == "bounce":
        if b != a:
            return f"{a}-{b} bounce: a bounce returns out of its own edge"
    else:
        return f"{a}-{b} {kind}: unknown kind (straight, arc, stop, bounce)"
    return None


def _line_key(line) -> tuple:
    """A line as a comparable value: which way it is written does not matter."""
    a, b, kind = line
    return (kind, tuple(sorted({a, b})))


def _lines_set(lines) -> frozenset:
    return frozenset(_line_key(line) for line in lines)


def _turned(lines_set: frozenset, quarter_turns: int) -> frozenset:
    """The lines after `quarter_turns` turns of 90 degrees clockwise (N -> E -> S -> W)."""
    def turn(edge):
        return edge if edge not in EDGES else EDGES[(EDGES.index(edge) + quarter_turns) % 4]
    return frozenset((kind, tuple(sorted({turn(e) for e in ends}))) for kind, ends in lines_set)


def _show(lines_set) -> list[str]:
    return sorted(f"{'-'.join(ends)} {kind}" for kind, ends in lines_set)


def rotation_symmetry(lines) -> int:
    """The smallest number of quarter-turns (1, 2 or 4) that maps a piece's lines onto themselves."""
    lines_set = _lines_set(lines)
    return next(k for k in (1, 2, 3, 4) if _turned(lines_set, k) == lines_set)


@register("track_lines_well_formed", required=("items",), args={"items": _list_of({"type": "object"})})
def track_lines_well_formed(ctx, args) -> Iterable[Failure]:
    """Every line of every item is well formed and none is listed twice.

    args: items (JMESPath list of objects with `lines`: [[from, to, kind], ...]).
    """
    items = selected(ctx, args, "items", {"type": "array", "items": {
        "type": "object", "required": ["lines"], "properties": {"lines": {"type": "array"}}},
        "description": "a list of items, each with a list of lines"})
    for item in items:
        seen = set()
        for line in item["lines"]:
            problem = _line_problem(line)
            if problem:
                yield Failure(problem, "straight: opposite edges, arc: neighbouring edges, stop: to C, "
                                       "bounce: back out of its edge", item)
                continue
            key = _line_key(line)
            if key in seen:
                yield Failure(f"{'-'.join(key[1])} {key[0]} listed twice", "each line once", item)
            seen.add(key)


@register("track_lines_match", required=("items", "table"), args={
    "items": _list_of({"type": "object"}), "table": _list_of({"type": "object"})})
def track_lines_match(ctx, args) -> Iterable[Failure]:
    """Each item (by `id`) has exactly the lines of its row (by `piece`) in a geometry table,
    and the table and the items name the same pieces.

    args: items (JMESPath list of {id, lines}), table (JMESPath list of {piece, lines}).
    """
    lines = {"type": "array", "items": LINE}
    items = selected(ctx, args, "items", {"type": "array", "items": {
        "type": "object", "required": ["id", "lines"], "properties": {"id": {"type": "string"}, "lines": lines}},
        "description": "a list of {id, lines: [[from, to, kind], ...]}"})
    rows = selected(ctx, args, "table", {"type": "array", "items": {
        "type": "object", "required": ["piece", "lines"], "properties": {"piece": {"type": "string"}, "lines": lines}},
        "description": "a list of {piece, lines: [[from, to, kind], ...]}"})
    by_piece = {r["piece"]: r for r in rows}
    for item in items:
        row = by_piece.get(item["id"])
        if row is None:
            yield Failure(f"{item['id']} is not in the geometry table", sorted(by_piece), item)
            continue
        have, want = _lines_set(item["lines"]), _lines_set(row["lines"])
        if have != want:
            yield Failure(_show(have), _show(want), item)
    ids = {i["id"] for i in items}
    for piece, row in by_piece.items():
        if piece not in ids:
            yield Failure(f"no piece {piece}", "a piece for every row of the table", row)


@register("track_symmetry", required=("items",), args={"items": _list_of({"type": "object"})})
def track_symmetry(ctx, args) -> Iterable[Failure]:
    """Each item's declared `symmetry` is the rotation symmetry its lines have.

    args: items (JMESPath list of {lines, symmetry}).
    """
    items = selected(ctx, args, "items", {"type": "array", "items": {
        "type": "object", "required": ["lines", "symmetry"], "properties": {"lines": {"type": "array", "items": LINE}}},
        "description": "a list of {lines: [[from, to, kind], ...], symmetry}"})
    for item in items:
        computed = rotation_symmetry(item["lines"])
        if item["symmetry"] != computed:
            yield Failure(item["symmetry"], computed, item)


def assemble_board(quarter: list[str], turns: int = 4) -> list[list[str]]:
    """The square board made of `turns` copies of a quarter map, copy k turned k x 90 degrees
    clockwise about the board's centre (row 0 of the quarter is the outer edge, column 0 its
    corner side). Quarter cell (x, y) lands at (x, y) turned k times by (X, Y) -> (n-1-Y, X)."""
    size = len(quarter)
    n = 2 * size
    board = [[" "] * n for _ in range(n)]
    for k in range(turns):
        for y, row in enumerate(quarter):
            for x, symbol in enumerate(row):
                X, Y = x, y
                for _ in range(k):
                    X, Y = n - 1 - Y, X
                board[Y][X] = symbol
    return board


def _regions(board, symbol) -> list[int]:
    """Sizes of the groups of side-by-side fields holding `symbol`, largest first."""
    n, seen, sizes = len(board), set(), []
    for y in range(n):
        for x in range(n):
            if board[y][x] != symbol or (x, y) in seen:
                continue
            stack, size = [(x, y)], 0
            seen.add((x, y))
            while stack:
                cx, cy = stack.pop()
                size += 1
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < n and 0 <= ny < n and (nx, ny) not in seen and board[ny][nx] == symbol:
                        seen.add((nx, ny))
                        stack.append((nx, ny))
            sizes.append(size)
    return sorted(sizes, reverse=True)


@register("board_fields", required=("quarter",), args={
    "quarter": QUARTER,
    "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0},
               "description": "fields of each symbol: {symbol: count}"},
    "regions": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                "description": "sizes of the groups of each symbol: {symbol: [size, ...]}"}})
def board_fields(ctx, args) -> Iterable[Failure]:
    """A board assembled from four turned quarters has the expected fields: `counts` of each
    symbol on the whole board, and `regions` (the sizes of the connected groups of a symbol:
    four Homes of 5 fields are {H: [5, 5, 5, 5]}).

    args: quarter (JMESPath list of equal-length strings, a square), counts, regions.
    """
    quarter = selected(ctx, args, "quarter", SQUARE_ROWS)
    if len({len(r) for r in quarter}) != 1 or len(quarter[0]) != len(quarter):
        yield Failure([len(r) for r in quarter], f"{len(quarter)} rows of {len(quarter)} fields", quarter)
        return
    board = assemble_board(quarter)
    cells = [s for row in board for s in row]
    for symbol, want in (args.get("counts") or {}).items():
        got = cells.count(symbol)
        if got != want:
            yield Failure(f"{got} fields '{symbol}'", want, quarter)
    for symbol, want in (args.get("regions") or {}).items():
        sizes = _regions(board, symbol)
        if sizes != sorted(want, reverse=True):
            yield Failure(f"groups of '{symbol}' fields {sizes}", sorted(want, reverse=True), quarter)


STEP = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


@register("fixed_track_fields", required=("quarter", "pieces", "on", "enters"), args={
    "quarter": QUARTER, "pieces": _list_of({"type": "object"}), "on": SYMBOLS, "enters": SYMBOLS,
    "leaves": SYMBOLS})
def fixed_track_fields(ctx, args) -> Iterable[Failure]:
    """Track built into the board joins the right fields: every line of a piece standing on a
    field in `on` starts at an edge facing a field in `enters` and, unless it stops in the
    centre, ends at an edge facing a field in `leaves`. Pieces sit at (x, y) of the quarter
    as it lies in the board's top-left corner (N towards row 0).

    args: quarter, pieces (JMESPath list of {x, y, lines}); on, enters, leaves (lists of field
    symbols, written as lists so they are not read as JMESPath).
    """
    quarter = selected(ctx, args, "quarter", SQUARE_ROWS)
    if len({len(r) for r in quarter}) != 1 or len(quarter[0]) != len(quarter):
        yield Failure([len(r) for r in quarter], f"{len(quarter)} rows of {len(quarter)} fields", quarter)
        return
    board = assemble_board(quarter)
    at = {"type": "integer", "minimum": 0, "maximum": len(board) - 1}
    pieces = selected(ctx, args, "pieces", {"type": "array", "items": {
        "type": "object", "required": ["x", "y", "lines"],
        "properties": {"x": at, "y": at, "lines": {"type": "array", "items": TRACK_LINE}}},
        "description": f"a list of {{x, y, lines}}, x and y on the board (0..{len(board) - 1})"})
    on, enters, leaves = set(args["on"]), set(args["enters"]), set(args.get("leaves") or ())

    def facing(x, y, edge):
        dx, dy = STEP[edge]
        nx, ny = x + dx, y + dy
        return board[ny][nx] if 0 <= ny < len(board) and 0 <= nx < len(board) else "outside the board"

    placed = [p for p in pieces if board[p["y"]][p["x"]] in on]
    if not placed:
        yield Failure(f"no fixed piece on {sorted(on)}", "at least one", pieces)
    for p in placed:
        for a, b, kind in p["lines"]:
            if facing(p["x"], p["y"], a) not in enters:
                yield Failure(f"{a}-{b} {kind} at ({p['x']}, {p['y']}) comes from '{facing(p['x'], p['y'], a)}'",
                              f"it comes from {sorted(enters)}", p)
            if b in STEP and kind != "bounce" and facing(p["x"], p["y"], b) not in leaves:
                yield Failure(f"{a}-{b} {kind} at ({p['x']}, {p['y']}) leads to '{facing(p['x'], p['y'], b)}'",
                              f"it leads to {sorted(leaves)}", p)
