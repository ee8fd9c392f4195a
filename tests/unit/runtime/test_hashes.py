from p4emu.runtime.hashes import HASH_ALGORITHMS, pack_fields

CHECK = b"123456789"


def test_crc_check_values():
    assert HASH_ALGORITHMS["crc16"](CHECK) == 0xBB3D
    assert HASH_ALGORITHMS["crc32"](CHECK) == 0xCBF43926
    assert HASH_ALGORITHMS["crc16_custom"](CHECK) == 0xBB3D
    assert HASH_ALGORITHMS["crc32_custom"](CHECK) == 0xCBF43926


def test_csum16_is_internet_checksum():
    # IPv4 header example with checksum field zeroed: checksum is 0xB861
    header = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    assert HASH_ALGORITHMS["csum16"](header) == 0xB861
    # odd length: the last byte is padded on the right
    assert HASH_ALGORITHMS["csum16"](b"\x01") == (~0x0100) & 0xFFFF


def test_xor16_and_identity():
    assert HASH_ALGORITHMS["xor16"](b"\x12\x34\x56\x78") == 0x1234 ^ 0x5678
    assert HASH_ALGORITHMS["xor16"](b"\x12\x34\x56") == 0x1234 ^ 0x5600
    assert HASH_ALGORITHMS["identity"](b"\x01\x02") == 0x0102
    assert HASH_ALGORITHMS["identity"](bytes(range(1, 11))) == 0x0102030405060708


def test_pack_fields_msb_first_zero_padded():
    assert pack_fields([(0xABC, 12)]) == b"\xab\xc0"
    assert pack_fields([(1, 1), (0, 7), (0xFF, 8)]) == b"\x80\xff"
    assert pack_fields([(0x1FF, 8)]) == b"\xff"  # values are cut to their width
    assert pack_fields([]) == b""


def test_make_packer_matches_pack_fields():
    from p4emu.runtime.hashes import make_packer
    cases = [((12,), (0xABC,)), ((1, 7, 8), (1, 0, 0xFF)), ((8,), (0x1FF,)),
             ((32, 32, 8, 16, 16), (0x0A000001, 0x0A000304, 17, 0x12B9, 0x12B9)),
             ((3, 0, 13), (7, 5, 0x1FFF))]
    for widths, values in cases:
        assert make_packer(widths)(values) == pack_fields(zip(values, widths, strict=True))
