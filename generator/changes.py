"""What changed between two versions of a game, by the draw keys of its faces.

In: a project folder, a game and a reference: a git ref (its cards/ and templates/ are
unpacked under output/.cache/refs/<commit>/ and rendered there, nothing drawn) or
`last` (the face keys the previous build recorded in output/.cache/builds/<game>.json).
Out: per component id, the draw keys of its faces (fronts in order, then the back), and
the ids whose keys differ; what a version says of each (`CardFacts`: name, deck, count,
texts, short id), which a build records beside the keys for `pnp changes last..`. A
draw key covers everything that decides a face's pixels (faces.py), so "changed" means
"prints differently", whatever file was edited.
Used by `pnp build --changed-since`, `pnp diff` and `pnp changes` (errata.py).
"""
from __future__ import annotations

import hmac
import io
import json
import os
import re
import stat
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from . import safefs
from .data.editions import edition, languages_of, read_translation
from .data.load import load_game
from .draw.cardid import short_ids
from .draw.drawkey import face_key
from .draw.pictures import policy_for
from .draw.render import render_svgs
from .errors import InputError, OutputError, RenderError, collect
from .guard import git_command, git_env
from .session import Session

LAST = "last"
KEEP_REFS = 4
GIT_SECONDS = 300   # the most one git command reading a ref may take (it runs before the jail's budgets)
PICTURE = re.compile(r"\.(png|jpe?g|gif|webp|tiff?|svg)$", re.I)
SKIP = frozenset({"id", "count", "front", "back"})   # not words a player reads (templates, copies)


@dataclass(frozen=True)
class CardFacts:
    """What a version says of one component: its name, deck, copies, texts and short id."""

    name: str
    deck: str
    count: int
    texts: dict
    short: str
    backed: bool = True         # its deck prints a back: the last of its draw keys


def facts_of(game) -> dict[str, CardFacts]:
    """Every component's `CardFacts`, in the game's order."""
    return dict(each_facts(game))


def each_facts(game):
    """(component, its `CardFacts`) in the game's order, made one at a time."""
    shorts = short_ids(game)
    for deck in game.decks:
        for card in deck.cards:
            yield card.id, CardFacts(card.name, deck.id, card.count, texts(card), shorts[card.id],
                                     card.back is not None and not deck.family.per_face)


def texts(card) -> dict[str, str]:
    """The words of a card a player reads: its name and every field of text or numbers (a list
    of them joined), not a picture's file name, a template or the count."""
    found = {"name": card.name}
    for key, value in card.fields.items():
        if key in SKIP:
            continue
        if isinstance(value, list | tuple) and all(_scalar(v) for v in value):
            value = ", ".join(map(str, value))
        if _scalar(value) and not (isinstance(value, str) and PICTURE.search(value.strip())):
            found[str(key)] = str(value)
    return found


def _scalar(value) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def face_list(rc) -> list[str]:
    """A component's face keys: its fronts (every face of a die), then its back if printed."""
    return list(rc.faces or (rc.front,)) + ([rc.back] if rc.back else [])


def component_keys(cards, draw_keys: dict) -> dict[str, list[str | None]]:
    return {rc.card.id: [draw_keys.get(k) for k in face_list(rc)] for rc in cards}


def current(game, session: Session):
    """(FaceSVGs, {component: draw keys}, {face key: draw key}) of a loaded game, nothing drawn."""
    found = render_svgs(game, session)
    collect("while rendering", list(found.problems), RenderError)  # a version whose templates fail
    pictures = policy_for(game.meta.get("print")).digest()   # as a build without --draft or --image-dpi
    draw_keys = {k: face_key(svg, found.sizes.get(k), found.roots, found.fonts_digest, pictures)
                 for k, svg in found.svgs.items()}
    return found, component_keys(found.cards, draw_keys), draw_keys


def changed_ids(before: dict, after: dict) -> list[str]:
    """Components of `after` that are new or whose faces differ, in `after`'s order."""
    return [cid for cid, keys in after.items() if before.get(cid) != keys]


def record_path(out_dir: Path, stem: str) -> Path:
    """Where a build records a game's (or an edition's: olympians-de) draw keys."""
    return out_dir / ".cache" / "builds" / f"{stem}.json"


def record(rendered):
    """The build record: every component's draw keys (for `--changed-since last`), as JSON
    in pieces of bytes, one component at a time (10,000 components make a few MB)."""
    yield b'{\n"game": ' + json.dumps(rendered.game.id).encode() + b',\n"components": {'
    for n, rc in enumerate(rendered.cards):
        keys = [rendered.draw_keys.get(k) for k in face_list(rc)]
        yield (",\n" if n else "\n").encode() + json.dumps(rc.card.id).encode() + b": " + json.dumps(keys).encode()
    yield b'\n},\n"cards": {'   # what `pnp changes last..` says of each (errata.py)
    for n, (cid, facts) in enumerate(each_facts(rendered.game)):   # ids are unique (load.py)
        yield (",\n" if n else "\n").encode() + json.dumps(cid).encode() + b": " + json.dumps(
            {"name": facts.name, "deck": facts.deck, "count": facts.count, "texts": facts.texts, "short": facts.short,
             "backed": facts.backed}, ensure_ascii=False).encode()
    yield b"\n}\n}\n"


def write_record(out_dir: Path, stem: str, rendered) -> None:
    """The build record written under output/.cache/builds/ (never through a link), a line
    after it holding its tag keyed with this machine's cache key (safefs.py): a record
    planted in a checkout is not taken for the last build."""
    safefs.write_file(out_dir.parent, record_path(out_dir, stem), _tagged(f"builds/{stem}", record(rendered)),
                      sync=True)


def record_written(out_dir: Path, stem: str, rendered, name: str) -> list:
    """`write_record` for a build: what cannot be written an OutputError naming the
    edition `name`; nothing returned (an empty list of artifacts)."""
    try:
        write_record(out_dir, stem, rendered)
    except OSError as exc:
        raise OutputError(f"cannot write {name}'s build record: {exc.strerror or exc}") from None
    return []


def _tagged(name: str, pieces):
    """`pieces`, then a line of their tag: written as they come (10,000 components' record
    is megabytes, once held whole at the build's peak)."""
    tag = safefs.tagger(name)
    for piece in pieces:
        tag.update(piece)
        yield piece
    yield b"#" + tag.digest().hex().encode() + b"\n"


def last_build(out_dir: Path, game_id: str) -> dict:
    return dict(_recorded(out_dir, game_id)["components"])


def last_cards(out_dir: Path, game_id: str) -> dict:
    """{component: CardFacts' fields} the last build recorded (a record of before it: none)."""
    return dict(_recorded(out_dir, game_id).get("cards") or {})


def _recorded(out_dir: Path, game_id: str) -> dict:
    path = record_path(out_dir, game_id)
    try:
        with safefs.folder(out_dir.parent, path.parent, make=False) as fd:
            body, _, tag = safefs.read_in(fd, path.name).rstrip(b"\n").rpartition(b"\n#")
        if not hmac.compare_digest(safefs.tag(f"builds/{game_id}", body + b"\n").hex().encode(), tag):
            raise ValueError("not recorded by pnp on this machine")
        found = json.loads(body.decode("utf-8"))
        if not isinstance(found.get("components"), dict):
            raise ValueError("no components recorded")
        return found
    except (OSError, ValueError, KeyError, TypeError, InputError):
        raise InputError(f"{game_id}: no earlier build is recorded in {path.parent}; build once "
                         "first, or give a git ref (e.g. --changed-since HEAD)") from None


def _no_links(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's `data` filter, and no link of any kind: cards and templates need none, and
    the data filter itself had holes through links (CVE-2025-4517, fixed only in newer
    Pythons); this runs before the jail."""
    if member.issym() or member.islnk():
        raise tarfile.FilterError(f"{member.name} is a link: a git ref's cards and templates are read without links")
    return tarfile.data_filter(member, dest)


def checkout(root: Path, ref: str, out_dir: Path) -> Path:
    """The project's cards/ and templates/ as they are at git `ref`, unpacked (once per
    commit) under output/.cache/refs/<commit>/. Raises InputError for a bad ref."""
    def git(*args) -> bytes:
        try:
            return subprocess.run(git_command(root, *args), check=True, capture_output=True, env=git_env(),
                                  stdin=subprocess.DEVNULL, timeout=GIT_SECONDS).stdout
        except FileNotFoundError:
            raise InputError("git is not installed: a git ref cannot be read") from None
        except subprocess.TimeoutExpired:
            raise InputError(f"git took more than {GIT_SECONDS} s to read ref '{ref}' in {root}") from None
        except subprocess.CalledProcessError as exc:
            detail = exc.stderr.decode(errors="replace").strip().splitlines()
            raise InputError(f"cannot read git ref '{ref}' in {root}: "
                             f"{detail[-1] if detail else 'no branch, tag or commit of that name'}") from None

    commit = git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    prefix = git("rev-parse", "--show-prefix").decode().strip()
    refs = out_dir / ".cache" / "refs"
    dest = refs / commit
    mark = safefs.tag(f"refs/{commit}").hex().encode()   # a folder planted in a checkout lacks it
    with safefs.folder(out_dir.parent, refs) as fd:
        try:
            with safefs.folder(fd, commit, make=False) as done:
                if safefs.read_in(done, ".complete").strip() == mark:
                    return dest
        except (OSError, InputError):
            pass
        listing = git("ls-tree", "--name-only", f"{commit}:{prefix}" if prefix else commit).decode().split()
        paths = [p for p in ("cards", "templates") if p in listing]
        tmp = safefs.temp_name(commit)
        os.mkdir(tmp, 0o700, dir_fd=fd)   # a new folder of pnp's own: what it unpacks there stays there
        if paths:
            tree = f"{commit}:{prefix}" if prefix else commit
            try:
                with tarfile.open(fileobj=io.BytesIO(git("archive", "--format=tar", tree, *paths))) as tar:
                    tar.extractall(refs / tmp, filter=_no_links)
            except tarfile.TarError as exc:   # the data filter: a link leading outside, a device...
                safefs.remove_in(fd, tmp)
                raise InputError(f"git ref '{ref}' cannot be unpacked: {exc}") from None
        with safefs.folder(fd, tmp, make=False) as into:
            safefs.write_in(into, ".complete", mark + b"\n")
        safefs.remove_in(fd, commit)
        os.rename(tmp, commit, src_dir_fd=fd, dst_dir_fd=fd)
        kept = sorted(((st.st_mtime, name) for name, st in safefs.entries(fd)
                       if stat.S_ISDIR(st.st_mode) and not name.startswith(".")), reverse=True)
        for _, old in kept[KEEP_REFS:]:  # a bounded cache: the most recently unpacked commits only
            safefs.remove_in(fd, old)
    return dest


def describe(root: Path, ref: str) -> str:
    """`git describe --tags --always` of `ref`: the version a stamp of that version prints."""
    try:
        done = subprocess.run(git_command(root, "describe", "--tags", "--always", f"{ref}^{{commit}}"),
                              capture_output=True, text=True, env=git_env(), stdin=subprocess.DEVNULL, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return ref
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else ref


def before(root: Path, game_id: str, ref: str, out_dir: Path, lang: str, session: Session,
           tree: Path | None = None):
    """The reference's (game or None, {component: draw keys}); a game absent at `ref` is
    empty. `lang`: an edition in another language than the cards are written in; `tree`:
    where `ref` was unpacked already (before a jail, which runs no git)."""
    if ref == LAST:
        return None, last_build(out_dir, f"{game_id}-{lang}" if lang else game_id)
    tree = tree or checkout(root, ref, out_dir)
    if not (tree / "cards" / game_id / "game.yaml").is_file():
        return None, {}
    game = load_game(tree, game_id, session)
    if lang:
        if lang not in languages_of(game.meta):
            return None, {}
        game = edition(game, lang, read_translation(game, lang))
    return game, current(game, session)[1]
