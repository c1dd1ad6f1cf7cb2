"""Print-shop profiles: `pnp export --profile tgc|mpc|dtc`.

In: a `RenderedGame` and a profile name. Out: the files the shop accepts as is, and a
manifest summary. Each deck of cards is matched to one of the shop's products by its trim
size (within `MATCH_MM`, either way up); a deck no product matches is an error naming the
deck and the sizes the shop sells; the other decks are still exported and the manifest
lists the skipped ones (`skipped`), which `pnp export` prints as warnings. Dice, standees
and boards are not cards and are left out.

- tgc (The Game Crafter): PNG per face at 300 dpi on the product's canvas (trim + 1/8 in
  bleed a side; poker 825 x 1125 px), `<deck>/<card>.png` and `<deck>/back.png` (or
  `<deck>/<card>-back.png` when the backs differ).
- mpc (MakePlayingCards): PNG per face at 300 dpi on MPC's canvas (36 px bleed a side;
  poker 822 x 1122 px), `<deck>/front/<nnn>-<card>.png`, `<deck>/back/...`.
- dtc (DriveThruCards): one PDF per deck, one card per page, each page trim + 1/8 in bleed
  (poker 2.75 x 3.75 in), back then front for every copy (Squib's DriveThruCards sprue:
  "alternate back/front"; DTC's own template not seen), every page with TrimBox and
  BleedBox. The file is PDF/X-1a:2003, as DTC asks (pdfx/): CMYK through Ghostscript's
  SWOP profile, which the OutputIntent embeds; transparent marks and what lies beneath
  them become a CMYK image per face, the rest (usually all text) stays vector. The
  manifest says `"colour": "CMYK"`, `"pdf"`, `"output_intent"`, and lists under
  `flattened` each face with pixels (their size, and how many text operators lie in them,
  kept as invisible text). Each file is checked (pdfx/check.py) before it is written,
  rendered in CMYK too: a page whose total ink passes the limit is refused.

Total ink (`max_ink`, percent of C+M+Y+K) is each shop's limit for a CMYK file: 240 for
DriveThruCards; The Game Crafter and MakePlayingCards take RGB images and separate them
themselves, so pnp sets none. game.yaml's `print: max_ink:` changes it for a game (a shop
that prints richer, or a paper that takes less).

A face is placed on the canvas centred, scaled by the smallest factor >= 1 that lets its
bleed cover the canvas (1 when the deck's own trim and bleed are the shop's); the factor is
in the manifest (`scale`). Every number is in `PROFILES`, with its source.
"""
from __future__ import annotations

import pikepdf

from ..data.yamlsrc import line_of
from ..errors import InputError, OutputError, Problem, RenderError
from ..layout.forms import FacePlacer
from ..units import PT_PER_MM
from . import ExportFile
from .pdfx import VERSION as pdfx_version
from .pdfx import Cmyk, PdfX, page_inks, pdfx_problems
from .png import card_sides
from .raster import Rasteriser, png_bytes
from .shops import IN, PROFILES, Product, Profile

MATCH_MM = 1.5   # a deck matches a product when both trim sides are this close


def match_product(profile: Profile, deck) -> tuple[Product, bool]:
    """The product a deck is printed as, and whether it lies on its side (landscape)."""
    for product in profile.products:
        tw, th = (v * IN for v in product.trim_in)
        for turned, (w, h) in ((False, (tw, th)), (True, (th, tw))):
            if abs(deck.trim_w - w) <= MATCH_MM and abs(deck.trim_h - h) <= MATCH_MM:
                return product, turned
    sizes = ", ".join(f"{p.name} {p.trim_in[0]:g} x {p.trim_in[1]:g} in" for p in profile.products)
    raise InputError("1 problem in the export", [Problem(
        deck.source.file, f"{profile.shop} prints no {deck.trim_w:g} x {deck.trim_h:g} mm component "
        f"(it sells: {sizes})", line=line_of(deck.raw, ("size",)), field="size")])


def canvas_mm(profile: Profile, product: Product, turned: bool) -> tuple[float, float]:
    """The size of the shop's file, in mm, the deck's way up."""
    w, h = product.canvas
    w_mm, h_mm = (w * IN / profile.dpi, h * IN / profile.dpi) if profile.kind == "png" else (w * IN, h * IN)
    return (h_mm, w_mm) if turned else (w_mm, h_mm)


def fit(deck, cw: float, ch: float) -> tuple[float, tuple[float, float, float, float]]:
    """Scale of the face on the canvas and the part of the face (mm, top-left origin) it shows."""
    scale = max(1.0, cw / deck.width, ch / deck.height)
    w, h = cw / scale, ch / scale
    return scale, ((deck.width - w) / 2, (deck.height - h) / 2, w, h)


def profile_target(rendered, asked):
    """`pnp export --profile NAME` (exports/targets.py); the CMYK preflight's files go to
    output/.cache/preflight."""
    return profile_files(rendered, asked.target, scratch=asked.folder.parents[2] / ".cache" / "preflight")


def profile_files(rendered, name: str, scratch=None):
    """Every file of the profile for the game's card decks; returns (files, summary).
    `scratch`: a folder for the CMYK preflight's files (output/.cache/preflight)."""
    profile = PROFILES[name]
    max_ink = (rendered.game.meta.get("print") or {}).get("max_ink", profile.max_ink)
    decks: dict[str, list] = {}
    for rc in rendered.cards:
        if rc.deck.family.card_exports and rc.card.count > 0:
            decks.setdefault(rc.deck.id, []).append(rc)
    problems, matched = [], {}
    for deck_id, cards in decks.items():
        try:
            matched[deck_id] = match_product(profile, cards[0].deck)
        except InputError as exc:
            problems += exc.problems
    if not matched:
        raise InputError(f"cannot export for {profile.shop}: it prints none of the game's decks", problems)
    files = []
    raster = Rasteriser(rendered) if profile.kind == "png" else None
    try:
        for deck_id, cards in decks.items():
            if deck_id not in matched:
                continue  # listed under `skipped` in the manifest and shown by the command
            product, turned = matched[deck_id]
            if profile.kind == "png":
                files += _images(profile, product, turned, cards, raster)
            else:
                files.append(_pdf(profile, product, turned, cards, rendered, max_ink, scratch))
    finally:
        if raster is not None:
            raster.close()
    summary = {"shop": profile.shop, "dpi": profile.dpi, "bleed_in": profile.bleed_in, "source": profile.source,
               "skipped": [str(p) for p in problems]}
    if profile.kind == "pdf":
        summary["notes"] = _flattened_note(files, profile.dpi)
        summary["max_ink"] = max_ink
    return files, summary


def _flattened_note(files, dpi: int) -> list[str]:
    """One line saying which faces PDF/X-1a made partly pixels, and which of them hold text."""
    faces = [(f.entry["deck"], x) for f in files for x in f.entry.get("flattened", [])]
    if not faces:
        return []
    texts = sorted({f"{deck}/{x['card']} ({x['side']})" for deck, x in faces if x["text_in_pixels"]})
    many = len(faces) != 1
    line = (f"{len(faces)} face{'s' if many else ''} draw{'' if many else 's'} with transparency, which PDF/X-1a "
            f"forbids: those marks and what lies "
            f"beneath them are CMYK pixels at {dpi} dpi, the rest stays vector (manifest: flattened)")
    if texts:
        shown = ", ".join(texts[:4]) + (f" and {len(texts) - 4} more" if len(texts) > 4 else "")
        line += f"; text in the pixels, kept as invisible searchable text: {shown}"
    return [line]


def _images(profile, product, turned, cards, raster) -> list[ExportFile]:
    deck = cards[0].deck
    cw, ch = canvas_mm(profile, product, turned)
    w_px, h_px = (product.canvas[1], product.canvas[0]) if turned else product.canvas
    scale, box = fit(deck, cw, ch)
    shared_back = len({rc.back for rc in cards}) == 1 and cards[0].back is not None
    files, done = [], set()
    for n, rc in enumerate(cards, start=1):
        for side, key in card_sides(rc):
            if profile.name == "tgc":
                path = f"{deck.id}/back.png" if side == "back" and shared_back else \
                    f"{deck.id}/{rc.card.id}{'' if side == 'front' else '-' + side}.png"
            else:
                path = f"{deck.id}/back/back.png" if side == "back" and shared_back else \
                    f"{deck.id}/{side}/{n:03d}-{rc.card.id}.png"
            if path in done:
                continue
            done.add(path)
            image = raster.face(key, int(w_px), int(h_px), box)
            files.append(ExportFile(path, png_bytes(image, profile.dpi), {
                "deck": deck.id, "id": None if path.endswith("/back.png") else rc.card.id, "side": side,
                "count": sum(c.card.count for c in cards) if path.endswith("/back.png") else rc.card.count,
                "product": product.name, "width_px": int(w_px), "height_px": int(h_px), "dpi": profile.dpi,
                "scale": round(scale, 4)}))
    return files


def _pdf(profile, product, turned, cards, rendered, max_ink=None, scratch=None) -> ExportFile:
    """One card per page, back then front for every copy, vector faces, TrimBox and BleedBox."""
    deck = cards[0].deck
    cw, ch = canvas_mm(profile, product, turned)
    scale, box = fit(deck, cw, ch)
    bleed = profile.bleed_in * IN
    pdf = pikepdf.new()
    placer = FacePlacer(pdf, rendered.faces_pdfs, rendered.page_of)
    W, H = cw * PT_PER_MM, ch * PT_PER_MM
    order = []
    for rc in cards:
        for _ in range(rc.card.count):
            # back then front, card by card (Squib's drivethrucards_1up sprue: "alternate back/front")
            order += [(rc, side, key) for side, key in reversed(card_sides(rc))]
    pdfx = PdfX(pdf, Cmyk(max_ink=max_ink), profile.dpi)
    flattened: dict[tuple[str, str], tuple[tuple[int, int], int]] = {}   # (card, side) -> (pixels, text in them)
    for rc, side, key in order:
        page = pdf.add_blank_page(page_size=(W, H))
        page.mediabox = page.bleedbox = pikepdf.Array([0, 0, W, H])
        inset = bleed * PT_PER_MM
        page.trimbox = pikepdf.Array([inset, inset, W - inset, H - inset])
        # the face's top-left part `box` at the page's top-left corner, `scale` times its size
        e = -box[0] * PT_PER_MM * scale
        f = H - (deck.height - box[1]) * PT_PER_MM * scale
        clip = b"0 0 %.4f %.4f re" % (W, H)
        content = placer.draw_at(page, key, (scale, 0, 0, scale, e, f), clip)
        page.contents_add(pdf.make_stream(content))
        report = pdfx.face(placer.forms[rendered.page_of[key]], f"card {rc.card.id} ({side})", scale)
        if report.raster_px:
            flattened[(rc.card.id, side)] = (report.raster_px, report.text_in_pixels)
    try:
        data = pdfx.finish(f"{rendered.game.title}: {deck.name}")
    except ValueError as exc:
        raise RenderError("1 problem in the export", [Problem(deck.source.file, str(exc))]) from None
    problems = pdfx_problems(data)
    if problems:  # pnp's own mistake, but never hand a shop a file its preflight refuses
        raise OutputError(f"the DriveThruCards file of deck {deck.id} is not PDF/X-1a (please report this): "
                          + "; ".join(problems[:5]))
    inks = page_inks(data, scratch) if max_ink is not None else []
    over = [f"page {n}: {ink:.0f} %" for n, ink in enumerate(inks, start=1) if ink > max_ink + 1e-9]
    if over:
        raise OutputError(f"the {profile.shop} file of deck {deck.id} passes the total ink limit of {max_ink:g} % "
                          f"(rendered in CMYK): " + "; ".join(over[:5]))
    return ExportFile(f"{deck.id}.pdf", data, {
        "deck": deck.id, "product": product.name, "pages": len(order),
        "page_in": [round(cw / IN, 4), round(ch / IN, 4)],
        "bleed_in": profile.bleed_in, "order": "back then front, every copy", "colour": "CMYK",
        "pdf": pdfx_version, "output_intent": pdfx.cmyk.description,
        "scale": round(scale, 4), "cards": [[rc.card.id, side] for rc, side, _ in order],
        "max_ink": max_ink, "most_ink": round(max(inks), 1) if inks else None,
        "flattened": [{"card": card, "side": side, "pixels": list(px), "text_in_pixels": text}
                      for (card, side), (px, text) in flattened.items()]})
