#!/usr/bin/env python3
# generate.py - writes the tensor files of this folder: NumPy .npy files,
# .npz bundles and NNEF tensor files of tract's item types, each broken in
# one way (the name starts with the code it must give), and the seeds of
# the fuzz targets npy and dat (testsuite/fuzz/regressions/). Python's
# standard library only; the bytes are made here, so that the files stay
# the same. testsuite/tools/datinfo.sh runs `nnef-datinfo --stats` on each
# file of this folder and compares its standard error with NAME.err.
# Usage: python3 testsuite/golden/tensors/generate.py
import io
import os
import struct
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
fuzz = os.path.join(here, '..', '..', 'fuzz', 'regressions')


def put(folder, name, data):
    with open(os.path.join(folder, name), 'wb') as f:
        f.write(data)


def npy_text(descr, shape, fortran=False):
    if len(shape) == 1:
        shp = '(%d,)' % shape[0]
    else:
        shp = '(' + ', '.join(str(d) for d in shape) + ')'
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, 'True' if fortran else 'False', shp)


def npy(text, data=b'', version=1, pad=True):
    """A .npy of header text (padded to 64 bytes and ended by a newline
    unless pad is False) and data."""
    pre = 10 if version == 1 else 12
    if pad:
        text = text + ' ' * ((64 - (pre + len(text) + 1) % 64) % 64) + '\n'
    raw = text.encode('latin-1')
    if version == 1:
        head = b'\x93NUMPY\x01\x00' + struct.pack('<H', len(raw))
    else:
        head = b'\x93NUMPY' + bytes([version, 0]) + struct.pack('<I', len(raw))
    return head + raw + data


def f32(*vals):
    return struct.pack('<%df' % len(vals), *vals)


def zipped(members, method=zipfile.ZIP_STORED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', method) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return bytearray(b.getvalue())


def patch_all(buf, old, new):
    """Replaces every occurrence of the bytes old by new (same length)."""
    assert len(old) == len(new)
    i = buf.find(old)
    assert i >= 0
    while i >= 0:
        buf[i:i + len(old)] = new
        i = buf.find(old, i + 1)
    return buf


def header_offsets(buf):
    """The offsets of the local headers and central directory entries."""
    return ([i for i in range(len(buf)) if buf[i:i + 4] == b'PK\x03\x04'],
            [i for i in range(len(buf)) if buf[i:i + 4] == b'PK\x01\x02'])


def dat(bits, code, extents, data, length=None):
    """An NNEF tensor file: code is the 4-byte item-type code."""
    h = b'\x4e\xef\x01\x00'
    h += struct.pack('<I', len(data) if length is None else length)
    h += struct.pack('<I', len(extents))
    h += b''.join(struct.pack('<I', e) for e in extents)
    h += b'\0' * (4 * (8 - len(extents)))
    h += struct.pack('<II', bits, code)
    h += b'\0' * (128 - len(h))
    return h + data


TR = 0x5452 << 16
Q40, Q40G, STR = TR | 0x2040, TR | 0x3040, TR | 0x1000


def q40_block(scale_bits, nibbles, ggml=False):
    """A Q4_0 block: the half scale_bits, then the 32 codes nibbles."""
    out = bytearray(struct.pack('<H', scale_bits))
    for k in range(16):
        if ggml:
            lo, hi = nibbles[k], nibbles[k + 16]
        else:
            lo, hi = nibbles[2 * k], nibbles[2 * k + 1]
        out.append(lo | hi << 4)
    return bytes(out)


def strings(*items):
    return b''.join(struct.pack('<I', len(s)) + s for s in items)


def golden():
    g = lambda name, data: put(here, name, data)
    good = npy(npy_text('<f4', [2]), f32(1.0, 2.0))
    # .npy
    g('e1401_member_not_npy.npz', bytes(zipped([('a.npy', b'\x93NUMPZ\x01\x00' + good[8:])])))
    g('e1401_short.npy', b'\x93NUMPY\x01')
    g('e1402_version_4.npy', b'\x93NUMPY\x04\x00' + good[8:])
    g('e1403_header_too_long.npy', b'\x93NUMPY\x02\x00' + struct.pack('<I', 100000) + b'{' * 32)
    g('e1403_missing_colon.npy', npy("{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }", f32(1, 2)))
    g('e1403_unterminated_string.npy', npy("{'shape': (2,), 'fortran_order': False, 'descr': '<f4}", f32(1, 2)))
    g('e1403_no_newline.npy', npy(npy_text('<f4', [2]) + ' ' * 53 + ' ', f32(1, 2), pad=False))
    g('e1403_after_dict.npy', npy(npy_text('<f4', [2]) + " 'x'", f32(1, 2)))
    g('e1403_cut_header.npy', good[:60])
    g('e1404_unknown_key.npy', npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'order': 'C', }", f32(1, 2)))
    g('e1404_repeated_key.npy', npy("{'descr': '<f4', 'shape': (2,), 'fortran_order': False, 'shape': (2,), }", f32(1, 2)))
    g('e1404_missing_shape.npy', npy("{'descr': '<f4', 'fortran_order': False, }", f32(1)))
    g('e1404_shape_number.npy', npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", f32(1, 2)))
    g('e1404_negative_extent.npy', npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", f32(1, 2)))
    g('e1404_too_many_dims.npy', npy(npy_text('<f4', [1] * 33), f32(1)))
    g('e1405_complex.npy', npy(npy_text('<c8', [1]), f32(1, 2)))
    g('e1405_structured.npy', npy("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }", f32(1)))
    g('e1405_bar_on_f4.npy', npy(npy_text('|f4', [2]), f32(1, 2)))
    g('e1406_fortran.npy', npy(npy_text('<f4', [2, 1], fortran=True), f32(1, 2)))
    g('e1407_cut_data.npy', good[:-2])
    g('e1407_extra_data.npy', good + b'\0\0\0\0')
    # .npz
    pair = [('a.npy', good), ('b.npy', npy(npy_text('<i8', [1]), struct.pack('<q', 7)))]
    z = zipped(pair)
    g('e1408_cut.npz', bytes(z[:len(z) // 2]))
    bad = bytearray(z)
    at = bad.find(f32(1.0, 2.0))
    bad[at + 7] ^= 0x01  # 2.0 becomes 2.0000005: the CRC no longer fits
    g('e1408_crc.npz', bytes(bad))
    loc, cen = header_offsets(z)
    bad = bytearray(z)
    for o in (loc[0] + 8, cen[0] + 10):  # method 12 (bzip2) for a.npy
        bad[o:o + 2] = struct.pack('<H', 12)
    g('e1408_method.npz', bytes(bad))
    bad = bytearray(z)
    for o in (loc[1] + 6, cen[1] + 8):  # b.npy flagged as encrypted
        bad[o] |= 1
    g('e1408_encrypted.npz', bytes(bad))
    bad = bytearray(z)
    bad[cen[0] + 20:cen[0] + 24] = struct.pack('<I', len(good) - 8)  # stored: compressed size != size
    g('e1408_stored_sizes.npz', bytes(bad))
    # a deflated member that holds more than it declares: its header and
    # its declared size agree on 1000 items, the data has 100 bytes more
    arr = npy(npy_text('<f4', [1000]), f32(*([0.5] * 1000)))
    zz = zipped([('big.npy', arr + b'\0' * 100)], zipfile.ZIP_DEFLATED)
    g('e1408_more_than_declared.npz', bytes(patch_all(zz, struct.pack('<I', len(arr) + 100), struct.pack('<I', len(arr)))))
    # ... and one that holds less
    short = npy(npy_text('<f4', [1000]), f32(*([0.5] * 900)))
    zz = zipped([('short.npy', short)], zipfile.ZIP_DEFLATED)
    g('e1408_less_than_declared.npz', bytes(patch_all(zz, struct.pack('<I', len(short)), struct.pack('<I', len(arr)))))
    g('e1409_traversal.npz', bytes(zipped([('../a.npy', good)])))
    g('e1409_absolute.npz', bytes(zipped([('/tmp/a.npy', good)])))
    g('e1410_twice.npz', bytes(zipped([('a.npy', good), ('b.npy', good), ('a.npy', good)])))
    zz = zipped([('bomb.npy', npy(npy_text('<f4', [1000]), f32(*([0.0] * 1000))))], zipfile.ZIP_DEFLATED)
    g('e1411_ratio.npz', bytes(patch_all(zz, struct.pack('<I', len(arr)), struct.pack('<I', 0x7fff0000))))
    g('w1413_not_an_array.npz', bytes(zipped([('notes.txt', b'hello\n'), ('a.npy', good)])))
    # tract's item types
    block = q40_block(0x3c00, list(range(16)) * 2)
    g('e1007_q40_bits.dat', dat(4, Q40, [1, 32], block))
    g('e1008_q40_length.dat', dat(0xffffffff, Q40, [2, 32], block))
    g('e1014_tract_type.dat', dat(8, TR | 0x0777, [2], b'\1\2'))
    g('e1015_q40_rank.dat', dat(0xffffffff, Q40, [32], block))
    g('e1015_q40_row.dat', dat(0xffffffff, Q40G, [2, 16], block))
    g('e1016_string_utf8.dat', dat(0xffffffff, STR, [2], strings(b'ok', b'caf\xe9')))
    g('e1016_string_not_utf8.dat', dat(0xffffffff, STR, [1], strings(b'\xff')))
    g('e1016_string_cut.dat', dat(0xffffffff, STR, [2], strings(b'one') + struct.pack('<I', 9) + b'tw'))
    g('e1016_string_extra.dat', dat(0xffffffff, STR, [1], strings(b'one', b'two')))
    g('e1009_string_short.dat', dat(0xffff, STR, [3], b'\0\0\0\0'))
    g('w1011_complex.dat', dat(64, TR | 0x0000, [2], f32(1, 2, 3, 4)))


def seeds():
    n = os.path.join(fuzz, 'npy')
    d = os.path.join(fuzz, 'dat')
    os.makedirs(n, exist_ok=True)
    p = lambda name, data: put(n, name, data)
    p('f4_v1_rank2.npy', npy(npy_text('<f4', [2, 3]), f32(1, 2, 3, 4, 5, 6)))
    p('f2_big_endian_subnormal_inf_nan.npy', npy(npy_text('>f2', [4]), struct.pack('>4H', 0x0001, 0x3555, 0x7c00, 0x7e00)))
    p('f8_v3_scalar.npy', npy(npy_text('<f8', []).replace('(, )', '()').replace(', )', ')'), struct.pack('<d', -0.0), version=3))
    p('i8_v2_extremes.npy', npy(npy_text('<i8', [2]), struct.pack('<2q', -2**63, 2**63 - 1), version=2))
    p('u2_b1_i1.npz', bytes(zipped([
        ('u.npy', npy(npy_text('<u2', [2]), struct.pack('<2H', 0, 65535))),
        ('b.npy', npy(npy_text('|b1', [3]), b'\x00\x01\x02')),
        ('i.npy', npy(npy_text('|i1', [2]), b'\x80\x7f'))], zipfile.ZIP_DEFLATED)))
    p('empty_extent.npy', npy(npy_text('<f4', [2, 0])))
    p('python2_long_extents.npy', npy("{'descr': '<u4', 'fortran_order': False, 'shape': (2L, 1L), }", struct.pack('<2I', 1, 2)))
    p('stored_with_readme.npz', bytes(zipped([('readme.txt', b'x'), ('x.npy', npy(npy_text('<f4', [1]), f32(3.5)))])))
    dp = lambda name, data: put(d, name, data)
    dp('tract_q40_two_blocks.dat', dat(0xffffffff, Q40, [1, 64], q40_block(0x3555, list(range(16)) * 2) + q40_block(0x8001, [15 - (k % 16) for k in range(32)])))
    dp('tract_q40_ggml_order.dat', dat(0xffffffff, Q40G, [2, 32], q40_block(0xc000, list(range(32 // 2)) * 2, ggml=True) + q40_block(0x7c00, [8] * 32, ggml=True)))
    dp('tract_strings_utf8.dat', dat(0xffffffff, STR, [3], strings(b'', b'caf\xc3\xa9', b'\xf0\x9f\x98\x80'), length=72))


golden()
seeds()
