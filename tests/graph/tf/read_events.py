#!/usr/bin/env python3
"""Lists a TensorBoard event file without caflow's code: the TFRecord framing and both masked
CRC-32Cs checked (python3-crc32c when installed, else the bitwise definition), each record
decoded by Debian's `protoc --decode_raw`, which knows no .proto: what it prints are the field
numbers TensorFlow's Event, Summary and HistogramProto use.

    read_events.py FILE      one line per record: "record N: <decode_raw output on one line>"
Exits 1 naming the record at fault when the framing or a CRC is wrong."""
import struct
import subprocess
import sys

try:
    import crc32c as _crc32c

    def crc32c(data):
        return _crc32c.crc32c(data)
except ImportError:
    def crc32c(data):
        crc = 0xFFFFFFFF
        for byte in data:
            crc ^= byte
            for _ in range(8):
                crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def main(path):
    data = open(path, "rb").read()
    at = 0
    index = 0
    while at < len(data):
        if len(data) - at < 12:
            sys.exit(f"record {index} at {at}: truncated header")
        (length,) = struct.unpack_from("<Q", data, at)
        (length_crc,) = struct.unpack_from("<I", data, at + 8)
        if masked(crc32c(data[at:at + 8])) != length_crc:
            sys.exit(f"record {index} at {at}: length CRC mismatch")
        body = data[at + 12:at + 12 + length]
        if len(body) != length or len(data) < at + 16 + length:
            sys.exit(f"record {index} at {at}: truncated data")
        (body_crc,) = struct.unpack_from("<I", data, at + 12 + length)
        if masked(crc32c(body)) != body_crc:
            sys.exit(f"record {index} at {at}: data CRC mismatch")
        decoded = subprocess.run(["protoc", "--decode_raw"], input=body, capture_output=True, check=True)
        print(f"record {index}: " + " ".join(decoded.stdout.decode("utf-8", "replace").split()))
        at += 16 + length
        index += 1


if __name__ == "__main__":
    main(sys.argv[1])
