"""Checks a Parquet file with the standard library only: PAR1 at both ends, and the row count the
footer (Thrift compact FileMetaData) states, also summed over its row groups. Prints JSON."""
import json
import struct
import sys


class Compact:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    def zigzag(self):
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip(self, kind):
        if kind in (1, 2):
            return None
        if kind == 3:
            return self.byte()
        if kind in (4, 5, 6):
            return self.zigzag()
        if kind == 7:
            self.pos += 8
            return None
        if kind == 8:
            n = self.varint()
            self.pos += n
            return None
        if kind in (9, 10):
            return self.list()
        if kind == 11:
            n = self.varint()
            if n:
                types = self.byte()
                for _ in range(n):
                    self.skip(types >> 4)
                    self.skip(types & 0x0F)
            return None
        if kind == 12:
            return self.struct()
        raise ValueError(f"unknown thrift type {kind}")

    def list(self):
        header = self.byte()
        size, kind = header >> 4, header & 0x0F
        if size == 15:
            size = self.varint()
        return [self.skip(kind) for _ in range(size)]

    def struct(self):
        fields, last = {}, 0
        while True:
            header = self.byte()
            if header == 0:
                return fields
            delta, kind = header >> 4, header & 0x0F
            fid = last + delta if delta else self.zigzag()
            last = fid
            value = self.skip(kind)
            fields[fid] = True if kind == 1 else False if kind == 2 else value


def main(path):
    data = open(path, "rb").read()
    ok = len(data) >= 12 and data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    out = {"magic": ok, "bytes": len(data)}
    if ok:
        (footer_len,) = struct.unpack("<I", data[-8:-4])
        meta = Compact(data[-8 - footer_len : -8]).struct()
        out["numRows"] = meta.get(3)
        out["rowGroupRows"] = sum(group.get(3, 0) for group in meta.get(4) or [])
        out["columns"] = len(meta.get(2) or []) - 1
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
