"""What vulture (pyproject.toml's [tool.vulture], run by make test and make check) takes for
dead code in generator/ but is not: each name with why it is used. A name is listed here
only when nothing in generator/ refers to it by name; a new entry needs its reason.

In: nothing (vulture reads this file, nothing imports it). Out: names marked used.
Click commands, registered rule checks and JMESPath functions are found by their
decorators (ignore_decorators in pyproject.toml), not listed here.
"""
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Overrides: a library calls these methods or reads these class attributes by name
_.http_error_301, _.http_error_303, _.http_error_307, _.http_error_308   # urllib's redirect handler (data/download)
_.compose_sequence_node      # PyYAML's Composer (data/yamlbridge)
_.parse_object, _.parse_array   # read by the json module's py_make_scanner (data/jsonsrc)
_._create_surface            # CairoSVG's PDFSurface (draw/svgbridge)
_.visit_Concat               # Jinja's CodeGenerator (draw/sandboxbounds)
_.intercepted_binops, _.code_generator_class, _.wrap_str_format   # Jinja's SandboxedEnvironment (draw/templates)
_.concat_bounded             # called by the code BoundedCode compiles `~` to (draw/templates)
_.list_templates             # Jinja's BaseLoader (draw/templates)
_.__getattr__                # a module's attribute hook, asked by Python's import (bindings)
_.load_bytecode, _.dump_bytecode   # Jinja's BytecodeCache (draw/templates)
_.daemon_threads, _.handle_error, _.do_GET, _.log_message   # http.server's server and handler (loop/preview)
_.afterFlowable              # reportlab's DocTemplate (rulebook/book)
_.getSpaceBefore, _.getSpaceAfter   # reportlab's Flowable (rulebook/pangobook)
_.categoryNames, _.boxAnchor, _.valueMin, _.valueMax, _.valueStep, _.fillColor, _.strokeColor, _.barLabelFormat, \
    _.nudge   # reportlab's chart attributes, read when the chart draws (layout/statsheet)

# Arguments a caller passes by position: a signal handler's, a cache's key
_.signum                     # signal.signal's handler signature (guard)
_.client_address             # socketserver's handle_error signature (loop/preview)
_.mtime_ns                   # part of the lru_cache key of draw/drawkey._file_digest
_.bundle                     # the lru_cache key of layout/forms._font_digests

# Attributes a library reads: written here, read there
_.freeze_panes, _.created, _.modified   # openpyxl's sheet and workbook properties (data/i18nfiles)
_.compress_type, _.external_attr        # zipfile.ZipInfo (data/i18nfiles, exports/kit)
_.end_index, _.num_chars                # Pango's C structs through cffi (draw/pangobridge, draw/pangotext)
_.handled_access_net, _.scoped          # Landlock's ruleset attribute struct (jailbridge)
_.close_connection                      # http.server's handler (loop/preview)
_.tableStyle                            # reportlab's TableOfContents (rulebook/book)
_.namespace_prefixes, _.StartElementHandler, _.EndElementHandler, _.CharacterDataHandler   # expat (data/workbookedit)
_.StartDoctypeDeclHandler, _.EntityDeclHandler                                             # expat (data/workbookedit)
_._TTFont__hbPrivate                    # reportlab's TTFont private-use counter (rulebook/rlbridge)
_.bleedbox, _.trimbox                   # pikepdf's page boxes (exports/profiles)
# PDF dictionary keys written through pikepdf (exports/pdfx, recolour, cmyk; draw/picturedraw; layout/forms)
_.Type, _.Subtype, _.FormType, _.Matrix, _.Width, _.Height, _.BitsPerComponent, _.BitsPerSample
_.ColorSpace, _.Decode, _.DecodeParms, _.Range, _.Size, _.OutputIntents
_.Title, _.Creator, _.Producer, _.CreationDate, _.ModDate, _.Trapped, _.GTS_PDFXConformance, _.GTS_PDFXVersion

# Read by the tests that pin a bridge to the versions it was checked with
_.TESTED                     # tests/test_svgbridge.py, test_pangobridge.py, test_yamlbridge.py

# Called only by tests (kept: each is what a test checks the product's output with, or a seam)
_.run_font, _.run_level, _.font_file, _.baselines   # draw/pangobridge: tests/test_pangobridge.py, test_text.py; benchmarks
_.game_lock, _.clean_leftovers   # exports/files: tests/test_export.py holds the lock as another build would
_.ink_problems               # exports/pdfx_check: tests/test_ink.py measures total ink with it
_.save_pdf                   # layout/pdfpage: tests/test_pdfx.py
_.cut_lines                  # layout/grid.Grid: tests/test_sheets.py, test_shapes.py
_.offset_rows                # layout/packing.Packing's field: tests/test_packing.py
_.invert, _.centroid, _.point_in_polygon   # layout/plane: tests/test_dicenet.py, test_standee.py check the geometry
_.base_strip                 # layout/standee: tests/test_standee.py

_.png_target, _.tts_target, _.faces_target, _.profile_target   # exports: named in exports/targets.TARGETS
_.showcase_target, _.hand_target   # exports: named in exports/targets.TARGETS
_.prints                     # data/kinds.Kind: docs/reference.md's kinds table (tests/test_kinds.py)
_.Rulebook._frame   # rulebook/book.py: what reportlab's frame gives a flowable it draws, given as it would
_.patterns, _.maxlen   # draw/pyphenbridge: a HyphDict's attributes, read by Pyphen's own HyphDict.positions
