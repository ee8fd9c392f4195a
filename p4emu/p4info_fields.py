"""Parts of P4Info messages below the top-level objects, as p4c's control-plane serializer
(control-plane/p4RuntimeSerializer.cpp, typeSpecConverter.cpp) writes them: field ids of
match fields / action params / packet metadata / value-set members, value-set match types,
type specs of register and digest values, and pkg_info from the main instance. The
annotations are the IR's (`p4emu.ir.Annotation`).
"""

from __future__ import annotations

from collections.abc import Sequence

from p4emu.ir.annotations import Annotation, Annotations, annotation_texts, find_annotation
from p4emu.lang.errors import P4CompileError

# annotations p4c consumes instead of copying into a P4Info message
ANNOTATION_SKIP = frozenset({"name", "id", "hidden", "controller_header", "field_list", "brief",
                             "description"})

MATCH_TYPES = {"exact": 2, "lpm": 3, "ternary": 4, "range": 5, "optional": 6}
PKGINFO_KEYS = ("name", "version", "organization", "contact", "url", "arch")


def field_ids(annos_per_field: Sequence[Annotations]) -> list[int]:
    """p4c's FieldIdAllocator: @id values first; the other fields are numbered from 1 in
    order, the counter stepping over fields that had an @id and over ids already taken."""
    ids: list[int | None] = []
    taken: set[int] = set()
    for annos in annos_per_field:
        a = find_annotation(annos, "id")
        v = a.integer() if a is not None else None
        if v is not None:
            if v == 0:
                raise P4CompileError(a.loc, "0 is not a valid @id value")
            if v in taken:
                raise P4CompileError(a.loc, f"@id {v} is used multiple times")
            taken.add(v)
        ids.append(v)
    index = 1
    out = []
    for v in ids:
        if v is not None:
            index += 1
            out.append(v)
            continue
        while index in taken:
            index += 1
        taken.add(index)
        out.append(index)
    return out


def match_type(annos: Annotations) -> tuple[int, str]:
    """Value-set struct field: (P4Info match_type, other_match_type) from its @match."""
    a = find_annotation(annos, "match")
    if a is None:
        return MATCH_TYPES["exact"], ""
    names = [t.text for t in a.body if t.kind == "id"]
    kind = names[-1] if names else ""
    if kind == "selector" or not kind:
        raise P4CompileError(a.loc, f"unsupported match type {kind} for Value Set '@match' annotation")
    return MATCH_TYPES.get(kind, 0), "" if kind in MATCH_TYPES else kind


def set_bits_type(spec, width: int, signed: bool, is_bool: bool = False) -> None:
    """A P4DataTypeSpec for bit<W> / int<W> / bool (TypeSpecConverter)."""
    if is_bool:
        spec.bool.SetInParent()
    elif signed:
        spec.bitstring.int.bitwidth = width
    else:
        spec.bitstring.bit.bitwidth = width


def set_doc(msg, annos: Annotations | None) -> None:
    for doc_field in ("brief", "description"):
        a = find_annotation(annos, doc_field)
        if a is not None and a.string() is not None:
            setattr(msg.doc, doc_field, a.string())


def pkginfo_pairs(anno: Annotation) -> list[tuple[str, str]]:
    """`@pkginfo(key = "value", ...)` as (key, value) pairs."""
    body = [t for t in anno.body if t.text != ","]
    out = []
    i = 0
    while i < len(body):
        if i + 2 >= len(body) or body[i + 1].text != "=" or body[i + 2].kind != "str":
            raise P4CompileError(anno.loc, "@pkginfo: expected key = \"string\" pairs")
        out.append((body[i].text, body[i + 2].value))
        i += 3
    return out


def fill_pkg_info(pkg, main_annos: Annotations) -> None:
    """pkg_info from @pkginfo keys, other annotations and @brief/@description of `main`."""
    pkg.arch = "v1model"
    for a in main_annos:
        if a.name != "pkginfo":
            continue
        for key, value in pkginfo_pairs(a):
            if key in PKGINFO_KEYS:  # p4c warns about, and ignores, any other key
                setattr(pkg, key, value)
    pkg.annotations.extend(annotation_texts(main_annos, ANNOTATION_SKIP | {"pkginfo"}))
    set_doc(pkg, main_annos)
