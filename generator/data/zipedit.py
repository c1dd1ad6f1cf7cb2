"""A zip file with some members' contents replaced and every other byte of every other member kept.

In: the bytes of a zip (an XLSX or ODS workbook) and {member name: its new content}. Out: the
bytes of the new zip: the members in their order, each one not replaced copied as it was
stored (its local header's name and extra field, its compressed bytes, its method, date,
attributes and comment), so an ODS's `mimetype` stays first and stored; a replaced member is
compressed as it was (deflated or stored) with its date and attributes; the archive's comment
is kept. A zip pnp cannot copy this way (encrypted, split, zip64, a member not where the
central directory says) raises `ZipRefused`; `wordfix` then reports its findings as not fixed.
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_DESCRIPTOR = 0x08   # the sizes and CRC follow the data, not in the local header


class ZipRefused(Exception):
    """The zip cannot be rewritten member by member (message for designers)."""


def replaced(data: bytes, new: dict[str, bytes]) -> bytes:
    """`data` with the members named in `new` holding their new contents."""
    try:
        book = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise ZipRefused(f"it is not a zip file ({exc})") from None
    out, central = io.BytesIO(), []
    for info in book.infolist():
        _check(info, data)
        offset = out.tell()
        name, extra, raw = _stored(info, data)
        flags = info.flag_bits & ~_DESCRIPTOR
        crc, size = info.CRC, info.file_size
        if info.filename in new:
            content = new[info.filename]
            if info.compress_type == zipfile.ZIP_DEFLATED:
                squeeze = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
                raw = squeeze.compress(content) + squeeze.flush()
            elif info.compress_type == zipfile.ZIP_STORED:
                raw = content
            else:
                raise ZipRefused(f"its member {info.filename} is compressed by method {info.compress_type}, "
                                 "which pnp does not write")
            crc, size = zlib.crc32(content), len(content)
        time, date = _dos(info.date_time)
        out.write(_LOCAL.pack(0x04034B50, info.extract_version, flags, info.compress_type, time, date, crc,
                              len(raw), size, len(name), len(extra)) + name + extra + raw)
        comment = info.comment
        central.append(_CENTRAL.pack(0x02014B50, info.create_version | info.create_system << 8,
                                     info.extract_version, flags, info.compress_type, time, date, crc, len(raw),
                                     size, len(name), len(info.extra), len(comment), 0, info.internal_attr,
                                     info.external_attr, offset) + name + info.extra + comment)
    missing = set(new) - set(book.namelist())
    if missing:
        raise ZipRefused(f"it has no member {', '.join(sorted(missing))}")
    start = out.tell()
    for entry in central:
        out.write(entry)
    out.write(_END.pack(0x06054B50, 0, 0, len(central), len(central), out.tell() - start, start,
                        len(book.comment)) + book.comment)
    return out.getvalue()


def _check(info: zipfile.ZipInfo, data: bytes) -> None:
    if info.flag_bits & 0x1:
        raise ZipRefused("it is encrypted")
    if max(info.file_size, info.compress_size, info.header_offset) >= 0xFFFFFFFF or info.volume:
        raise ZipRefused("it is a zip64 or split archive")
    if data[info.header_offset:info.header_offset + 4] != b"PK\x03\x04":
        raise ZipRefused(f"its member {info.filename} is not where its directory says")


def _stored(info: zipfile.ZipInfo, data: bytes) -> tuple[bytes, bytes, bytes]:
    """The member's name and extra field as its local header writes them, and its stored bytes."""
    at = info.header_offset
    name_len, extra_len = struct.unpack_from("<HH", data, at + 26)
    name = data[at + 30:at + 30 + name_len]
    extra = data[at + 30 + name_len:at + 30 + name_len + extra_len]
    start = at + 30 + name_len + extra_len
    raw = data[start:start + info.compress_size]
    if len(raw) != info.compress_size:
        raise ZipRefused(f"its member {info.filename} is cut short")
    return name, extra, raw


def _dos(when: tuple) -> tuple[int, int]:
    year, month, day, hour, minute, second = when
    return hour << 11 | minute << 5 | second // 2, max(year - 1980, 0) << 9 | month << 5 | day
