"""The dynamic symbols of an ELF64 shared library, read with `struct`.

tfcc names every exported function of a model `<prefix>_<what>`; a generic
loader finds the prefix from the library's dynamic symbol table (.dynsym and
its string table), as compiler/Runner.cpp's findPrefix does with LLVM.
"""
import struct

_SHT_DYNSYM = 11
_SHN_UNDEF = 0


def dynamic_symbols(path):
    """The names of the symbols `path` defines in its dynamic symbol table.

    Raises OSError when the file cannot be read and ValueError when it is not
    an ELF64 file (a 32-bit ELF file is refused by name).
    """
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path!r} exports no tfcc model: not an ELF file")
    elf_class, encoding = data[4], data[5]
    if elf_class == 1:
        raise ValueError(f"{path!r} exports no tfcc model: it is a 32-bit ELF "
                         "file (the tfcc package loads ELF64 models only)")
    if elf_class != 2 or encoding not in (1, 2):
        raise ValueError(f"{path!r} exports no tfcc model: not a valid ELF64 "
                         "file")
    end = "<" if encoding == 1 else ">"
    try:
        return _defined_dynamic_names(data, end)
    except (struct.error, IndexError) as e:
        raise ValueError(f"{path!r} exports no tfcc model: a truncated or "
                         f"malformed ELF64 file ({e})") from None


def _defined_dynamic_names(data, end):
    # ELF64 header: e_shoff at 0x28, e_shentsize/e_shnum at 0x3a/0x3c.
    (shoff,) = struct.unpack_from(end + "Q", data, 0x28)
    shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
    if shoff == 0 or shnum == 0:
        return set()
    # Section header: name, type, flags, addr, offset, size, link, info,
    # addralign, entsize.
    sections = [struct.unpack_from(end + "IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    names = set()
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != _SHT_DYNSYM:
            continue
        _, _, _, _, str_offset, str_size, _, _, _, _ = sections[link]
        strtab = data[str_offset:str_offset + str_size]
        entsize = entsize or 24
        # Symbol: name, info, other, shndx, value, size.
        for pos in range(offset, offset + size - entsize + 1, entsize):
            st_name, _, _, shndx, _, _ = struct.unpack_from(end + "IBBHQQ", data, pos)
            if st_name == 0 or shndx == _SHN_UNDEF:
                continue
            stop = strtab.index(b"\0", st_name)
            names.add(strtab[st_name:stop].decode("utf-8", "replace"))
    return names


def model_prefixes(names):
    """Prefixes P with P_invoke, P_info and P_create all in `names`, sorted."""
    return sorted(n[:-len("_invoke")] for n in names
                  if n.endswith("_invoke") and n[:-len("_invoke")] + "_info" in names
                  and n[:-len("_invoke")] + "_create" in names)
